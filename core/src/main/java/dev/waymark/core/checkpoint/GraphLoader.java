package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.store.TabMoves.TabPosition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Builds a tab's {@link CheckpointGraph} again: from the manifests of its tags ({@link #rebuild}),
 * or from a saved session's snapshot and the tags newer than it ({@link #restore}). In memory only.
 */
final class GraphLoader {
  private GraphLoader() {}

  /** What a checkpoint tag's manifest says, with the commit and the tag it was read from. */
  record StoredCheckpoint(int number, int parent, List<Integer> path, CheckpointStatus status, Instant created,
      List<FileChange> changes, ObjectId commit, String tag, List<ChildLink> children) {
    static StoredCheckpoint of(CheckpointManifest manifest, ObjectId commit, String tag) {
      return new StoredCheckpoint(manifest.checkpoint(), manifest.parent(), manifest.path(), manifest.status(),
          manifest.created(), manifest.changes(), commit, tag, manifest.children());
    }
  }

  /** A loaded graph, and whether it was moved to where the tab's last restore left the files. */
  record Loaded(CheckpointGraph graph, boolean reconciled) {}

  /**
   * Every checkpoint that changed files, and the checkpoints on their paths (those that changed
   * nothing come back done, created {@code now}). Live is the highest-numbered one.
   */
  static CheckpointGraph rebuild(List<StoredCheckpoint> stored, Map<Integer, Set<String>> saves, Instant now) {
    CheckpointGraph graph = new CheckpointGraph(now);
    Map<Integer, StoredCheckpoint> byNumber = new TreeMap<>();
    Map<Integer, Integer> parents = new TreeMap<>();
    for (StoredCheckpoint cp : stored) {
      byNumber.put(cp.number(), cp);
      List<Integer> path = cp.path();
      for (int i = 1; i < path.size(); i++) {
        parents.putIfAbsent(path.get(i), path.get(i - 1));
      }
      parents.putIfAbsent(cp.number(), Math.max(cp.parent(), 0));
    }
    Node last = graph.live();
    for (var entry : parents.entrySet()) {
      int number = entry.getKey();
      StoredCheckpoint cp = byNumber.get(number);
      Node parent = graph.exists(entry.getValue()) ? graph.node(entry.getValue()) : null;
      Node node = graph.put(number, parent, cp != null ? interrupted(cp.status()) : CheckpointStatus.DONE,
          cp != null ? cp.created() : now);
      if (cp != null) {
        cp.changes().forEach(change -> node.changes.put(change.path(), change));
        node.commit = cp.commit();
        node.tag = cp.tag();
        node.children.addAll(cp.children());
      }
      node.saved.addAll(saves.getOrDefault(number, Set.of()));
      last = node;
    }
    graph.node(0).saved.addAll(saves.getOrDefault(0, Set.of()));
    graph.position(last, last, List.of());
    return graph;
  }

  /**
   * A graph brought back from a snapshot. Checkpoints in {@code lost} keep their place and status
   * but their changes may not be crossed (their commit is gone); a checkpoint that was running is
   * cancelled. When {@code lastMove} starts where the snapshot stands, the restore it records
   * ended after the snapshot was taken: the files show its target, so the graph goes there.
   * {@code newer} (by number) are the checkpoints found under the tab's tags that the snapshot
   * does not know, or knew only as running.
   */
  static Loaded restore(TreeSnapshot snapshot, Set<Integer> lost, List<StoredCheckpoint> newer,
      Optional<TabPosition> lastMove, Instant now) {
    CheckpointGraph graph = new CheckpointGraph(now);
    for (Checkpoint cp : snapshot.checkpoints()) {
      Node parent = cp.number() > 0 && graph.exists(cp.parent()) ? graph.node(cp.parent()) : null;
      Node node = graph.put(cp.number(), parent, interrupted(cp.status()), cp.created());
      node.saved.addAll(cp.savedNames());
      node.children.addAll(cp.children());
      if (cp.number() == 0) {
        continue;
      }
      cp.changes().forEach(change -> node.changes.put(change.path(), change));
      if (!lost.contains(cp.number())) {
        node.commit = cp.commit().orElse(null);
        node.tag = cp.tag().orElse(null);
      } else {
        // The changes are kept (the session keeps naming them) but no restore may cross them.
        node.lost = !cp.changes().isEmpty();
      }
    }
    Node live = graph.nodeOrStart(snapshot.live());
    Node files = graph.nodeOrStart(snapshot.filesAt());
    List<Integer> redo = snapshot.redo();
    boolean reconciled = false;
    if (lastMove.isPresent()) {
      TabPosition moved = lastMove.get();
      if (moved.fromLive() == snapshot.live() && moved.fromFiles() == snapshot.filesAt()
          && graph.exists(moved.live()) && graph.exists(moved.files())) {
        live = graph.node(moved.live());
        files = graph.node(moved.files());
        redo = moved.redo();
        reconciled = true;
      }
    }
    graph.position(live, files, redo);
    for (StoredCheckpoint cp : newer) {
      adopt(graph, cp);
    }
    return new Loaded(graph, reconciled);
  }

  /**
   * Takes in a checkpoint found under the tab's tags that the snapshot does not know (or knew
   * only as running). One made from live after the snapshot was taken is what the files show
   * now, so live moves to it.
   */
  private static void adopt(CheckpointGraph graph, StoredCheckpoint cp) {
    Node node;
    if (graph.exists(cp.number())) {
      node = graph.node(cp.number());
      node.status = interrupted(cp.status());
      node.changes.clear();
    } else {
      Node parent = null;
      for (int i = cp.path().size() - 1; i >= 0 && parent == null; i--) {
        int n = cp.path().get(i);
        parent = n != cp.number() && graph.exists(n) ? graph.node(n) : null;
      }
      if (parent == null && graph.exists(cp.parent())) {
        parent = graph.node(cp.parent());
      }
      node = graph.put(cp.number(), parent, interrupted(cp.status()), cp.created());
      if (graph.live() == node.parent) {
        graph.position(node, node, List.of());
      }
    }
    for (FileChange change : cp.changes()) {
      node.changes.put(change.path(), change);
    }
    if (node.children.isEmpty()) {
      node.children.addAll(cp.children());
    }
    node.commit = cp.commit();
    node.tag = cp.tag();
  }

  /** A checkpoint still running when Waymark stopped ends as cancelled: its turn did not finish. */
  private static CheckpointStatus interrupted(CheckpointStatus status) {
    return status == CheckpointStatus.RUNNING ? CheckpointStatus.CANCELLED : status;
  }
}
