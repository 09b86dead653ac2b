package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The bodies of {@link CheckpointTree}'s named saves: checking a name, tagging the live checkpoint,
 * deleting a save, and the saves' commits a snapshot carries. Apart from the facade, which keeps
 * their documentation and refuses them while a turn runs.
 */
final class TreeSaves {

  private final CheckpointGraph graph;
  private final CheckpointWriter writer;

  TreeSaves(TreeParts tree) {
    this.graph = tree.graph();
    this.writer = tree.writer();
  }

  Checkpoint save(String name, boolean force) {
    checkSaveName(name);
    Node live = graph.live();
    for (Node n = live; n != null; n = n.parent) {
      if (n.lost) {
        throw new CheckpointException(CheckpointException.Kind.LOST, "Cannot save #" + live.number + ": what #" + n.number
            + " changed is gone from the shadow repository (deleted or damaged).");
      }
    }
    Optional<Node> holder = graph.nodes().stream().filter(n -> n.saved.contains(name)).findFirst();
    if (holder.isPresent() && !force) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, holder.get() == live
          ? "#" + live.number + " is saved as " + name + " already."
          : "This tab already has a save named " + name + " (#" + holder.get().number + "); repeat with --force to move "
              + "it to #" + live.number + ", or delete it first.");
    }
    writer.save(live, name, CheckpointGraph.latestAfters(live), force);
    holder.ifPresent(n -> n.saved.remove(name));
    live.saved.add(name);
    return live.snapshot();
  }

  int deleteSave(String name) {
    int number = graph.saved(name);
    writer.deleteSave(name);
    graph.node(number).saved.remove(name);
    return number;
  }

  /**
   * A save name is one component of a git ref name ({@code git check-ref-format}): letters,
   * digits, '.', '-' and '_', starting with a letter or digit, with no "..", and not ending in
   * '.' or ".lock".
   */
  static void checkSaveName(String name) {
    TagNames.checkSaveName(name);
  }

  /** The commit of each named save of the tab, by name: what a snapshot needs to bring the saves back. */
  Map<String, ObjectId> commits() {
    Map<String, ObjectId> saves = new TreeMap<>();
    for (Node n : graph.nodes()) {
      for (String name : n.saved) {
        ObjectId commit = writer.saveCommit(name);
        if (commit != null) {
          saves.put(name, commit);
        }
      }
    }
    return saves;
  }
}
