package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the changes of a tab's running checkpoint: stores their content, folds them into the
 * node, and keeps them under the checkpoint's tag as they come (write-ahead), through the
 * {@link CheckpointWriter}. Confined, like its tree, to the thread that holds the tree.
 */
final class TurnRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(TurnRecorder.class);

  private final StoreParts parts;
  private final String tabId;
  private final CheckpointWriter writer;
  /** The node of the turn that records now, if one does. */
  private Node running;

  TurnRecorder(StoreParts parts, String tabId, CheckpointWriter writer) {
    this.parts = parts;
    this.tabId = tabId;
    this.writer = writer;
  }

  Optional<Node> running() {
    return Optional.ofNullable(running);
  }

  /** The turn of {@code node} now records; no other may until it ends. */
  void started(Node node) {
    running = node;
  }

  /** Returns the change as stored. */
  FileChange record(Node node, String path, FileState before, FileState after) {
    checkRecordable(node, path);
    List<FileVersion> versions = parts.repo().insert(List.of(before, after));
    CheckpointGraph.fold(node, path, versions.get(0), versions.get(1));
    return new FileChange(path, versions.get(0), versions.get(1));
  }

  /** Records a change whose "before" is already stored (the change tracker's cached blob); returns the stored "after". */
  FileVersion record(Node node, String path, FileVersion before, FileState after) {
    checkRecordable(node, path);
    if (before.exists() && !parts.repo().has(before.blob())) {
      throw new CheckpointException(CheckpointException.Kind.LOST, "The earlier content of " + path + " (blob " + before.blob().name()
          + ") is not in the shadow repository");
    }
    FileVersion last = parts.repo().insert(List.of(after)).get(0);
    CheckpointGraph.fold(node, path, before, last);
    return last;
  }

  /**
   * Records many changes whose versions are all stored already (a shell command's); returns, by
   * path, why a change could not be recorded. A deleted file below what is now a link is
   * recorded: nothing is read through the link, and undo takes the link away first.
   */
  Map<String, String> recordStored(Node node, List<FileChange> changes) {
    Map<String, String> refused = new LinkedHashMap<>();
    for (FileChange change : changes) {
      try {
        if (change.after().exists() && !linkTakenAway(node, change.path())) {
          checkRecordable(node, change.path());
        } else {
          checkRunning(node, "it records no more changes");
          WorkTree.checkPath(change.path());
        }
        CheckpointGraph.fold(node, change.path(), change.before(), change.after());
      } catch (CheckpointException e) {
        refused.put(change.path(), e.getMessage());
      }
    }
    return refused;
  }

  /**
   * Records a change before it is made and keeps it under the running checkpoint's tag; returns
   * what the checkpoint held for the path before, for {@link #withdraw}. On failure nothing is
   * recorded.
   */
  Optional<FileChange> recordAhead(Node node, String path, FileState before, FileState after) {
    Optional<FileChange> previous = Optional.ofNullable(node.changes.get(path));
    FileChange change = record(node, path, before, after);
    try {
      persist(node);
    } catch (RuntimeException e) {
      CheckpointGraph.putChange(node, path, previous);
      throw e;
    }
    // the file system's time, as shell commands note theirs: the store's clock may be another
    parts.writeLog().append(tabId, List.of(change), System.currentTimeMillis());
    return previous;
  }

  /** Takes back a change recorded ahead that was then not made; the tag follows when it can. */
  void withdraw(Node node, String path, Optional<FileChange> previous) {
    CheckpointGraph.putChange(node, path, previous);
    try {
      persist(node);
    } catch (RuntimeException e) {
      // The tag may still name the change; a restore that finds the file as it was skips it.
      LOG.warn("could not update the running checkpoint #{} after a change to {} was not made", node.number, path, e);
    }
  }

  /**
   * Writes what the running checkpoint has recorded so far under its tag (status running), so
   * that a crash or a kill in the middle of the turn loses none of it. A checkpoint whose changes
   * folded back to nothing loses its tag.
   */
  void persist(Node node) {
    checkRunning(node, "there is nothing running to keep");
    if (node.changes.isEmpty()) {
      writer.dropTag(node);
    } else {
      writer.commit(node, CheckpointStatus.RUNNING);
    }
  }

  /** Ends the running checkpoint as if it had never begun: it holds no change (see {@link CheckpointGraph#withdraw}). */
  void withdrawn(Node node) {
    checkRunning(node, "there is nothing running to withdraw");
    writer.dropTag(node);
    running = null;
  }

  /** Ends the running checkpoint with {@code status}: its final commit, or no tag without changes. */
  void finish(Node node, CheckpointStatus status) {
    if (running != node) {
      throw new CheckpointException(CheckpointException.Kind.BUSY, "Checkpoint #" + node.number + " is finished already.");
    }
    if (status == CheckpointStatus.RUNNING) {
      throw new IllegalArgumentException("finish with done, cancelled or failed");
    }
    try {
      if (!node.changes.isEmpty() || !node.children.isEmpty()) { // a manifest records the tabs it owns too
        writer.commit(node, status);
        parts.maintenance().checkpointWritten();
      } else {
        writer.dropTag(node);
      }
      node.status = status;
    } finally {
      running = null;
    }
  }

  /**
   * Opens the finished checkpoint {@code node} again for {@code work} to record changes in, then
   * commits it with the status it had: how a shell command's changes that a killed process could
   * not record are added to their checkpoint when the tab is opened again.
   */
  <T> T amend(Node node, Supplier<T> work) {
    if (running != null) {
      throw new CheckpointException(CheckpointException.Kind.BUSY, "Checkpoint #" + running.number + " is running; nothing can be amended now.");
    }
    running = node;
    try {
      T result = work.get();
      if (!node.changes.isEmpty()) {
        writer.commit(node, node.status);
        parts.maintenance().checkpointWritten();
      }
      return result;
    } finally {
      running = null;
    }
  }

  private void checkRunning(Node node, String why) {
    if (running != node) {
      throw new CheckpointException(CheckpointException.Kind.BUSY, "Checkpoint #" + node.number + " is finished; " + why + ".");
    }
  }

  /**
   * Whether a directory above {@code path} is recorded in {@code node} as gone: a command that
   * replaced a link by a directory ({@code rm link && mkdir link}) is recorded before its layer is
   * applied, while the link is still there; nothing is read or written through it, and undo takes
   * the directory away before it puts the link back.
   */
  private static boolean linkTakenAway(Node node, String path) {
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      FileChange above = node.changes.get(path.substring(0, slash));
      if (above != null && !above.after().exists()) {
        return true;
      }
    }
    return false;
  }

  private void checkRecordable(Node node, String path) {
    checkRunning(node, "it records no more changes");
    WorkTree.checkPath(path);
    try {
      parts.workTree().refuseLinkedParent(path);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not check " + path + ": " + e.getMessage(), e);
    }
  }
}
