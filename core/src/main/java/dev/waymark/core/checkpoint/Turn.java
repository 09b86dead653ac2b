package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.TabHistory;
import dev.waymark.core.checkpoint.shell.TabRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * The running checkpoint of a turn: every change the turn makes to a file is recorded here, with
 * the content before and after. Records of the same path fold together (the first "before", the
 * last "after"); a path that ends as it began is dropped.
 *
 * <p>Typical use by a tool that knows what it will write: {@code before = turn.read(path)},
 * {@code turn.recordAhead(path, before, after)}, then write the file, so that a crash in between
 * loses nothing. When the result is only known afterwards, write, then
 * {@code turn.recordFromDisk(path, before)} and {@code turn.persist()}.
 *
 * <p>Used on the thread that holds its tree (the turn thread while the turn runs).
 */
public final class Turn implements TabRecords {
  private final TurnHost tree;
  final Node node;

  @Override
  public TabHistory history() {
    return tree.history();
  }

  Turn(TurnHost tree, Node node) {
    this.tree = tree;
    this.node = node;
  }

  @Override
  public int number() {
    return node.number;
  }

  /** The tab this turn belongs to. */
  @Override
  public String tabId() {
    return tree.tabId();
  }

  @Override
  public List<FileVersion> store(List<FileState> contents) {
    return tree.parts().repo().insert(contents);
  }

  /** Records changes whose versions are all stored; returns, by path, why one was refused. */
  @Override
  public Map<String, String> recordStoredChanges(List<FileChange> changes) {
    return tree.recorder().recordStored(node, changes);
  }

  /** Records that {@code path} (project-relative, {@code /} separated) went from {@code before} to {@code after}. */
  public void record(String path, FileState before, FileState after) {
    tree.recorder().record(node, path, before, after);
  }

  /**
   * Records that {@code path} went from an already stored version to {@code after}: used when
   * the "before" content was kept earlier, e.g. by a {@link WorkTreeSnapshot}. The blob must be in
   * this project's shadow repository.
   */
  public void record(String path, FileVersion before, FileState after) {
    tree.recorder().record(node, path, before, after);
  }

  FileVersion recordStored(String path, FileVersion before, FileState after) {
    return tree.recorder().record(node, path, before, after);
  }

  /**
   * Stats the project's files now and stores the content of those not stored since they last
   * changed, so that {@link WorkTreeSnapshot#recordChanges()} can record in this turn what a shell
   * command changed, with the content before. Files over {@code maxFileSize} bytes are stat'ed
   * but not stored. See {@link WorkTreeSnapshot} for the cost.
   */
  public WorkTreeSnapshot snapshotWorkTree(long maxFileSize) {
    return snapshotWorkTree(maxFileSize, CommandMark.random());
  }

  /**
   * {@link #snapshotWorkTree(long)} for a command that runs with {@code mark} in its environment:
   * if this Waymark is killed while the command runs, the next one stops what carries the mark
   * before it records the command's changes, so nothing it does afterwards goes unrecorded.
   */
  public WorkTreeSnapshot snapshotWorkTree(long maxFileSize, CommandMark mark) {
    return snapshotWorkTree(tree.parts().changeTracker(), maxFileSize, mark);
  }

  /**
   * {@link #snapshotWorkTree(long, CommandMark)} with another way of finding the command's changes
   * than comparing the project before and after it (see {@link CommandCapture}).
   */
  public WorkTreeSnapshot snapshotWorkTree(CommandCapture capture, long maxFileSize, CommandMark mark) {
    Path store = tree.parts().repo().directory();
    if (!Files.isRegularFile(store.resolve("HEAD"))) {
      // what runs now could never be recorded: refused before it starts, rather than applied unrecorded
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "the store its changes would be recorded in, "
          + store + ", is gone (deleted while Waymark ran); start Waymark again to make a new one");
    }
    return new WorkTreeSnapshot(capture, this, capture.before(this, maxFileSize, mark));
  }

  /**
   * How this turn's next shell command's changes are found: in a copy-on-write layer of its own
   * when {@code bwrap} (the sandbox that will confine it; empty: none) can hold one here, else by
   * comparing the project before and after it. Hand the capture to
   * {@link #snapshotWorkTree(CommandCapture, long, CommandMark)}.
   */
  public ShellCapture shellCapture(Optional<Path> bwrap) {
    Optional<Path> view = tree.viewDirectory();
    if (view.isPresent()) { // an isolated tab's commands run in its view, or not at all
      return new ShellCapture(tree.parts().layers().inView(view.get(), bwrap), Optional.empty());
    }
    Optional<String> noLayer = tree.parts().layers().unavailable(bwrap);
    return new ShellCapture(noLayer.isEmpty() ? tree.parts().layers() : tree.parts().changeTracker(), noLayer);
  }

  /**
   * The command line a read-only command (nothing to capture) runs as: in an isolated tab, entered
   * in its view mounted read-only by {@code bwrap}, so that it sees the tab's files; as it is in a
   * normal tab. A view that cannot be mounted is a {@code CheckpointException}.
   */
  public UnaryOperator<List<String>> readOnlyEntry(Optional<Path> bwrap) {
    Optional<Path> view = tree.viewDirectory();
    return view.isEmpty() ? UnaryOperator.identity() : tree.parts().layers().inView(view.get(), bwrap)::enterReadOnly;
  }

  /** A command's capture, and why it is not in a layer (empty when it is). */
  public record ShellCapture(CommandCapture capture, Optional<String> noLayer) {}

  /**
   * The project's shell-command slot: a command holds it from before its scan until its changes
   * are recorded, so that no two commands on the project overlap (see {@link CommandSlot}).
   */
  public CommandSlot commandSlot() {
    return tree.parts().changeTracker().commandSlot();
  }

  /** Whether this process runs inside another Waymark's shell command on this project, which holds the slot for it. */
  public boolean insideACommandOnThisProject() {
    return tree.parts().changeTracker().insideACommandHere();
  }

  /** Where the isolated tab's view is kept; empty when the tab works on the project itself. */
  public Optional<Path> viewDirectory() {
    return tree.viewDirectory();
  }

  /** Where {@code path} (project-relative) is on disk. */
  public Path projectFile(String path) {
    return tree.projectRoot().resolve(WorkTree.checkPath(path));
  }

  /** Reads {@code path} in the project as it is now, without following a link. */
  public FileState read(String path) {
    try {
      return tree.readProjectFile(WorkTree.checkPath(path));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read " + path + ": " + e.getMessage(), e);
    }
  }

  /** Records that {@code path} went from {@code before} to what is on disk now. */
  public void recordFromDisk(String path, FileState before) {
    record(path, before, read(path));
  }

  /**
   * Records that {@code path} is about to go from {@code before} to {@code after} and keeps that
   * under the checkpoint's tag, so that a crash at any moment of the write that follows loses
   * neither version. If the write then fails, pass the result to {@link #withdraw}. Throws, with
   * nothing recorded, when the store cannot take the change: then it must not be made.
   */
  public Optional<FileChange> recordAhead(String path, FileState before, FileState after) {
    return tree.recorder().recordAhead(node, WorkTree.checkPath(path), before, after);
  }

  /** Takes back a change recorded by {@link #recordAhead} that was not made. */
  public void withdraw(String path, Optional<FileChange> previous) {
    tree.recorder().withdraw(node, path, previous);
  }

  /**
   * Keeps what this turn has recorded so far under its checkpoint's tag, so that a crash before
   * {@link #finish} loses none of it. A tool records a change, persists, and only then makes it.
   */
  @Override
  public void persist() {
    tree.recorder().persist(node);
  }

  @Override
  public String rescueCommandVersions(Map<String, FileVersion> versions) {
    return tree.rescueCommand(versions, number());
  }

  @Override
  public List<FileChange> changes() {
    return new ArrayList<>(node.changes.values());
  }

  /**
   * Ends the turn as if it had never begun when it recorded nothing (a {@code waymark shell} that
   * changed no file leaves no checkpoint): live, files and redo are as they were. Returns whether
   * it did; when not, the turn is still open, to {@link #finish}.
   */
  public boolean withdrawIfEmpty() {
    return tree.withdraw(node);
  }

  /**
   * Records that this turn's subagent worked in {@code child}: the checkpoint then owns that tab's
   * checkpoints, and its undo, redo and goto move the tab with it. Safe from a tool's own thread.
   */
  public void linkChild(ChildLink child) {
    node.children.add(child);
  }

  /** Ends the turn; a checkpoint with file changes (or child tabs) gets its commit and tag now. */
  public Checkpoint finish(CheckpointStatus status) {
    try {
      tree.parts().captures().settleAsTurnEnds(this); // what commands' background processes changed
    } catch (CheckpointException e) {
      // the turn still ends; what background processes changed stays unrecorded and is logged
      LoggerFactory.getLogger(Turn.class).warn("could not record what background processes changed", e);
    }
    return tree.finish(node, status);
  }
}
