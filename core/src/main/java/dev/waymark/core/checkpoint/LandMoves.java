package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.ViewLanding;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Undo, redo and go to across a land: a land's checkpoint is undone as a land (the project goes
 * back as before it, and the tab is isolated again with its view as the land found it, from the
 * checkpoint's {@link LandRecord}) and redone as one (the project forward, merged with what changed
 * since, and the view closed, or emptied if the land kept the tab isolated). A move that crosses
 * lands goes in steps, one land at a time; between them a step is an ordinary restore, of the view
 * while the tab is isolated, of the project otherwise.
 */
final class LandMoves {
  private final TreeParts tree;

  LandMoves(TreeParts tree) {
    this.tree = tree;
  }

  /** The move to {@code target} when a land lies on the way; empty when none does (an ordinary restore). */
  Optional<RestoreResult> across(Node target, boolean force) {
    Node files = tree.graph().files();
    if (target == files) {
      return Optional.empty();
    }
    Node common = common(files, target);
    for (Node n = files; n != common; n = n.parent) { // going back: the land nearest the files first
      Optional<LandRecord> land = record(n);
      if (land.isPresent()) {
        List<RestoreResult> steps = new ArrayList<>();
        if (n != files && !step(steps, tree.host().moveBoth(n, force))) {
          return Optional.of(last(steps));
        }
        if (!step(steps, undo(n, land.get(), force)) || target == n.parent) {
          return Optional.of(combined(steps));
        }
        step(steps, tree.host().moveBoth(target, force));
        return Optional.of(combined(steps));
      }
    }
    List<Node> down = new ArrayList<>();
    for (Node n = target; n != common; n = n.parent) {
      down.add(0, n);
    }
    for (Node n : down) { // going forward: the land nearest the common ancestor first
      Optional<LandRecord> land = record(n);
      if (land.isPresent()) {
        List<RestoreResult> steps = new ArrayList<>();
        if (n.parent != files && !step(steps, tree.host().moveBoth(n.parent, force))) {
          return Optional.of(last(steps));
        }
        if (!step(steps, redo(n, land.get(), force)) || target == n) {
          return Optional.of(combined(steps));
        }
        step(steps, tree.host().moveBoth(target, force));
        return Optional.of(combined(steps));
      }
    }
    return Optional.empty();
  }

  /** The project back as before the land {@code land}, then the tab isolated with its view as the land found it. */
  private RestoreResult undo(Node land, LandRecord record, boolean force) {
    RestoreResult project = tree.host().moveInProject(land.parent, force);
    if (!project.applied()) {
      return project;
    }
    StoreParts parts = tree.host().projectParts();
    parts.layers().views().reopen(tree.tabId(), held(record));
    tree.host().enterView();
    return project.with(new ViewAct(ViewAct.Kind.LAND_UNDONE, land.number, record.view().size(), List.of(), true));
  }

  /** The land {@code land} made again: the project forward to it, the view closed, or emptied if the land kept the tab isolated. */
  private RestoreResult redo(Node land, LandRecord record, boolean force) {
    RestoreResult project = tree.host().moveInProject(land, force);
    if (!project.applied()) {
      return project;
    }
    ViewLanding views = tree.host().projectParts().layers().views();
    if (record.keptIsolated()) {
      views.reopen(tree.tabId(), List.of());
      tree.host().enterView();
    } else {
      Optional<Path> view = tree.host().viewDirectory();
      if (view.isPresent()) {
        views.close(view.get());
        tree.host().leaveView();
      }
    }
    return project.with(new ViewAct(ViewAct.Kind.LANDED_AGAIN, land.number, 0, List.of(), record.keptIsolated()));
  }

  /** The view as {@code record} keeps it, its versions read back from the store. */
  private List<ViewLanding.Held> held(LandRecord record) {
    List<ViewLanding.Held> held = new ArrayList<>();
    try {
      for (LandRecord.ViewEntry entry : record.view()) {
        FileState inView = state(entry.inView());
        byte[] base = entry.base().filter(FileVersion::exists).isPresent()
            ? tree.parts().repo().read(entry.base().get().blob()) : null;
        held.add(new ViewLanding.Held(entry.path(), inView, entry.base().isPresent(), base));
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The land's record of the view cannot be read: "
          + e.getMessage(), e);
    }
    return held;
  }

  private FileState state(FileVersion version) throws IOException {
    if (!version.exists()) {
      return FileState.absent();
    }
    byte[] content = tree.parts().repo().read(version.blob());
    return version.kind() == FileKind.SYMLINK ? FileState.of(FileKind.SYMLINK, content)
        : version.hasMode() ? FileState.withMode(content, version.mode()) : FileState.of(version.kind(), content);
  }

  /** What {@code node}'s checkpoint records of a land, read from its commit once; empty for any other checkpoint. */
  private Optional<LandRecord> record(Node node) {
    if (!node.landRead) {
      node.landRead = true;
      if (node.land == null && node.commit != null) {
        try {
          byte[] manifest = tree.parts().repo().readAt(node.commit, "waymark.json");
          if (manifest != null) {
            node.land = CheckpointManifest.parse(manifest, node.tag == null ? "#" + node.number : node.tag).land()
                .orElse(null);
          }
        } catch (IOException e) {
          throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The manifest of #" + node.number
              + " cannot be read: " + e.getMessage(), e);
        }
      }
    }
    return Optional.ofNullable(node.land);
  }

  private static Node common(Node a, Node b) {
    while (a.depth > b.depth) {
      a = a.parent;
    }
    while (b.depth > a.depth) {
      b = b.parent;
    }
    while (a != b) {
      a = a.parent;
      b = b.parent;
    }
    return a;
  }

  private static boolean step(List<RestoreResult> steps, RestoreResult result) {
    steps.add(result);
    return result.applied();
  }

  private static RestoreResult last(List<RestoreResult> steps) {
    return steps.get(steps.size() - 1);
  }

  /** The steps as one result, from the first's start to the last's end, telling the land's step; a step that stopped ends it. */
  private static RestoreResult combined(List<RestoreResult> steps) {
    RestoreResult last = last(steps);
    if (steps.size() == 1 || !last.applied()) {
      return last;
    }
    LinkedHashSet<String> written = new LinkedHashSet<>();
    LinkedHashSet<String> merged = new LinkedHashSet<>();
    LinkedHashSet<String> conflicts = new LinkedHashSet<>();
    LinkedHashSet<String> deleted = new LinkedHashSet<>();
    Optional<String> rescue = Optional.empty();
    Optional<ViewAct> act = Optional.empty();
    // what the land's step did to the project is what is told; the other steps moved the view or the project as any restore
    List<RestoreResult> told = steps.stream().filter(r -> r.view().isPresent()).toList();
    for (RestoreResult r : told.isEmpty() ? steps : told) {
      written.addAll(r.written());
      merged.addAll(r.merged());
      conflicts.addAll(r.conflicts());
      deleted.addAll(r.deleted());
      rescue = r.rescueTag().isPresent() ? r.rescueTag() : rescue;
      act = r.view().isPresent() ? r.view() : act;
    }
    return new RestoreResult(true, steps.get(0).from(), last.target(), List.copyOf(written), List.copyOf(merged),
        List.copyOf(conflicts), rescue, last.livePath(), List.copyOf(deleted), last.action(), act);
  }
}
