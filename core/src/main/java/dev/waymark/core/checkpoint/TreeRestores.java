package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.FileRestore;
import dev.waymark.core.checkpoint.restore.Planned;
import dev.waymark.core.checkpoint.restore.RestoreParts;
import dev.waymark.core.checkpoint.shell.TabHistory;
import dev.waymark.core.checkpoint.store.TabMoves.TabPosition;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The bodies of {@link CheckpointTree}'s restore commands (undo, redo, go to, restore in each mode,
 * revert, restore of paths, of rescued versions, take): what each plans, writes and records, apart
 * from the facade, which keeps their documentation and refuses them while a turn runs.
 *
 * <p>Built per command from the tree's {@link TreeParts}: an isolated tab's parts change when it
 * lands, so none is kept.
 */
final class TreeRestores {
  private final StoreParts parts;
  private final String tabId;
  private final CheckpointGraph graph;
  private final CheckpointWriter writer;
  private final TabHistory history;
  private final TreeParts tree;

  TreeRestores(TreeParts tree) {
    this.tree = tree;
    this.parts = tree.parts();
    this.tabId = tree.tabId();
    this.graph = tree.graph();
    this.writer = tree.writer();
    this.history = tree.history();
  }

  private int live() {
    return graph.live().number;
  }

  private int filesAt() {
    return graph.files().number;
  }

  private List<Integer> livePath() {
    return graph.livePath();
  }

  RestoreResult undo(boolean force) {
    return move(graph.undoTarget(), RestoreMode.BOTH, force);
  }

  RestoreResult undoTo(int number, boolean force) {
    return move(graph.undoToTarget(number), RestoreMode.BOTH, force);
  }

  RestoreResult redo(boolean force) {
    return move(graph.redoTarget(), RestoreMode.BOTH, force);
  }

  RestoreResult goTo(int number, boolean force) {
    return move(graph.node(number), RestoreMode.BOTH, force);
  }

  RestoreResult restore(int number, RestoreMode mode, boolean force) {
    Node target = graph.node(number);
    return switch (mode) {
      case BOTH -> move(target, mode, force);
      case FILES -> restoreFilesOnly(target, force);
      case CONVERSATION -> restoreConversationOnly(target);
    };
  }

  /**
   * The files go back to {@code target}, the conversation stays: a new checkpoint under live that
   * holds exactly what the restore wrote, so the next turn records only its own changes and undo
   * takes back the restore alone.
   */
  private RestoreResult restoreFilesOnly(Node target, boolean force) {
    if (target == graph.files()) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The files already are as #" + target.number + " holds them; nothing to restore.");
    }
    graph.refuseLost(graph.files(), target);
    Map<String, Planned> plan = RestorePlanner.plan(graph.files(), target);
    return asCheckpoint(graph.live(), plan, target, "Restored the files of #" + target.number, force);
  }

  /**
   * The conversation goes back to {@code target}, the files stay: a new checkpoint under live that
   * changes no file (the tab's conversation gives it {@code target}'s messages), so the footer, the
   * tree and the next turn agree on where the tab is, and undo takes back the restore alone.
   */
  private RestoreResult restoreConversationOnly(Node target) {
    if (target == graph.live()) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The conversation already is #" + target.number + "'s; nothing to restore.");
    }
    int from = live();
    Node node = graph.add(graph.live(), parts.clock().instant());
    commitAdded(node);
    return new RestoreResult(true, from, target.number, List.of(), List.of(), List.of(), Optional.empty(), livePath(),
        "Restored the conversation of #" + target.number + " as #" + node.number);
  }

  RestoreResult revert(int first, int last, Set<String> named, boolean force) {
    Set<String> paths = projectPaths(named);
    Node from = graph.node(first);
    Node to = graph.node(last);
    if (from.parent == null) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "#0 is the start of the tab; there is nothing to revert.");
    }
    if (!CheckpointGraph.isAncestor(from, to)) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "#" + first + " does not come before #" + last + " on one branch; a range is "
          + "N..M with #N on the way to #M.");
    }
    if (!CheckpointGraph.isAncestor(to, graph.live())) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "#" + last + " is not on the live path (" + pathText() + "); only what the live "
          + "checkpoint builds on can be reverted.");
    }
    graph.refuseLost(to, from.parent);
    Map<String, Planned> plan = new TreeMap<>(RestorePlanner.plan(to, from.parent));
    String range = first == last ? "#" + first : "#" + first + "..#" + last;
    if (!paths.isEmpty()) {
      for (String path : paths) {
        if (!plan.containsKey(path)) {
          throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, range + " did not change " + path + "; nothing was reverted.");
        }
      }
      plan.keySet().retainAll(paths);
    }
    if (plan.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, range + " changed no files; nothing to revert.");
    }
    return asCheckpoint(graph.live(), plan, from, "Reverted " + range, force);
  }

  RestoreResult restorePaths(int number, Set<String> named, boolean force) {
    Set<String> paths = projectPaths(named);
    if (paths.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Name the files to restore.");
    }
    Node target = graph.node(number);
    Map<String, FileVersion> wanted = graph.versionsAt(target, null);
    Map<String, FileVersion> now = graph.versionsAt(graph.files(), null);
    Map<String, Planned> plan = new TreeMap<>();
    for (String path : paths) {
      if (!wanted.containsKey(path)) {
        throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "No checkpoint of this tab changed " + path + ", so #" + number
            + " holds no version of it; nothing was restored.");
      }
      plan.put(path, new Planned(now.get(path), wanted.get(path)));
    }
    graph.refuseLost(graph.files(), target);
    return asCheckpoint(graph.live(), plan, target, "Restored " + String.join(", ", plan.keySet()) + " from #" + number,
        force);
  }

  RestoreResult restoreRescued(String name, boolean force) {
    RescuedVersions rescued = new RescuedVersions(parts.repo(), tabId);
    RescuedVersions.Rescued found = rescued.find(name);
    Map<String, FileVersion> now = graph.versionsAt(graph.files(), null);
    Map<String, Planned> plan = new TreeMap<>();
    rescued.versions(found).forEach((path, version) -> plan.put(path, new Planned(now.getOrDefault(path, FileVersion.ABSENT), version)));
    return asCheckpoint(graph.live(), plan, graph.live(), "Restored the versions rescued under " + found.name(), force);
  }

  RestoreResult take(CheckpointAt from, CheckpointAt to, String named, int hunk, boolean toSide, String action,
      boolean force) {
    String path = projectPaths(Set.of(named)).iterator().next();
    CheckpointComparison.Delta delta = CheckpointComparison.deltas(from, to, Set.of(path)).stream()
        .filter(d -> d.path().equals(path)).findFirst()
        .orElseThrow(() -> new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The two checkpoints hold " + path + " alike; nothing to take."));
    CheckpointComparison.Taken taken = new CheckpointComparison(parts.repo()).taken(delta, hunk, toSide);
    return asCheckpoint(graph.live(), Map.of(path, new Planned(taken.base(), taken.target())), graph.live(), action, force);
  }

  /**
   * The paths a user named, as the tab records them: relative to the project, with '/' ({@code
   * ./src/A.java} and the absolute path of a file in the project are {@code src/A.java}).
   */
  private Set<String> projectPaths(Set<String> named) {
    Set<String> paths = new TreeSet<>();
    Path root = parts.project();
    for (String name : named) {
      Path path = Path.of(name);
      Path relative = (path.isAbsolute() && path.normalize().startsWith(root) ? root.relativize(path.normalize())
          : path.normalize());
      String text = relative.toString().replace(File.separatorChar, '/');
      paths.add(text.isEmpty() || text.startsWith("../") || path.isAbsolute() && !path.normalize().startsWith(root)
          ? name : text);
    }
    return paths;
  }

  /** Writes {@code plan} and records what it wrote as a new checkpoint under {@code parent}. */
  private RestoreResult asCheckpoint(Node parent, Map<String, Planned> plan, Node subject, String action,
      boolean force) {
    int from = live();
    FileRestore.Outcome outcome;
    outcome = parts.captures().aroundRestore(history,
        () -> new FileRestore(restoreParts(), plan, subject.number, force).run(from));
    if (!outcome.applied()) {
      return new RestoreResult(false, from, subject.number, List.of(), List.of(), outcome.conflicts(),
          Optional.empty(), livePath(), action);
    }
    if (outcome.changes().isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "Nothing written (" + action + "): the files already are so; no checkpoint was made.");
    }
    Node node = graph.add(parent, parts.clock().instant());
    for (FileChange change : outcome.changes()) {
      CheckpointGraph.fold(node, change.path(), change.before(), change.after());
    }
    commitAdded(node);
    return new RestoreResult(true, from, subject.number, outcome.written(), outcome.merged(), outcome.conflicts(),
        outcome.rescueTag(), livePath(), outcome.deleted(), action + " as #" + node.number);
  }

  private void commitAdded(Node node) {
    if (!node.changes.isEmpty()) {
      writer.commit(node, CheckpointStatus.DONE);
      parts.maintenance().checkpointWritten();
    }
    writer.untag(Retention.toUntag(graph.nodes(), graph.live(), graph.files(), parts.retention(), parts.clock().instant()));
  }

  private String pathText() {
    return String.join(" → ", livePath().stream().map(n -> "#" + n).toList());
  }

  /** Files and conversation to {@code target}, across lands as {@link LandMoves} takes them. */
  RestoreResult moveBoth(Node target, boolean force) {
    return move(target, RestoreMode.BOTH, force);
  }

  private RestoreResult move(Node target, RestoreMode mode, boolean force) {
    if (mode == RestoreMode.BOTH) {
      Optional<RestoreResult> across = new LandMoves(tree).across(target, force);
      if (across.isPresent()) {
        return across.get();
      }
    }
    return plainMove(target, mode, force);
  }

  /** Files and conversation to {@code target} in the tab's files as they are now, with no land on the way. */
  RestoreResult plainMove(Node target, boolean force) {
    return plainMove(target, RestoreMode.BOTH, force);
  }

  private RestoreResult plainMove(Node target, RestoreMode mode, boolean force) {
    int from = live();
    int fromFiles = filesAt();
    FileRestore.Outcome outcome = FileRestore.Outcome.NOTHING;
    if (mode.movesFiles() && target != graph.files()) {
      graph.refuseLost(graph.files(), target);
      // processes a command left running: what they changed so far belongs to the files' checkpoint, not to the restore
      outcome = parts.captures().aroundRestore(history,
          () -> new FileRestore(restoreParts(), RestorePlanner.plan(graph.files(), target), target.number, force).run(from));
      if (!outcome.applied()) {
        return new RestoreResult(false, from, target.number, List.of(), List.of(), outcome.conflicts(),
            Optional.empty(), livePath());
      }
      graph.filesMovedTo(target);
    }
    if (mode.movesConversation()) {
      graph.liveMovedTo(target);
    }
    if (from != live() || fromFiles != filesAt()) {
      parts.tabMoves().record(tabId, new TabPosition(from, fromFiles, live(), filesAt(), graph.redoList()));
    }
    return new RestoreResult(true, from, target.number, outcome.written(), outcome.merged(),
        outcome.conflicts(), outcome.rescueTag(), livePath(), outcome.deleted());
  }

  /** What a restore of this tab's files works with; built per restore, since a test may swap the store's hook. */
  private RestoreParts restoreParts() {
    return new RestoreParts(tabId, parts.repo(), parts.workTree(), parts.lock(), parts.journalFile(), writer::rescue,
        wrote -> parts.writeLog().append(tabId, wrote, System.currentTimeMillis()),
        parts.beforeRestoreWrite());
  }
}
