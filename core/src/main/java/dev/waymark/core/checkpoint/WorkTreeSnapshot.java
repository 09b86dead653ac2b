package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.TabRecords;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.util.List;
import java.util.Optional;

/**
 * The project's files as they were before a shell command: taken by
 * {@link Turn#snapshotWorkTree(long)}, then {@link #recordChanges()} after the command records in
 * the turn what it created, changed or deleted, and keeps it under the checkpoint's tag. The
 * same handle serves a command captured in a layer of its own ({@link Turn#shellCapture}): then
 * {@link #enter} puts the command in its layer and {@link #recordChanges(CommandCapture.Ended)}
 * applies it; what follows describes capture by observation.
 *
 * <p>How it works, like git's index: the store keeps, per project and between processes, a stat
 * cache of path → (size, mtime, ctime, inode, mode, blob). Taking a snapshot stats every file the
 * {@link ProjectWalker} walks. A file whose stat matches the cache, or, in a git work tree, the
 * user's own index (clean, not racy, not converted on checkout), is not read: its content is
 * known by blob id. Only the others are read and stored, packed. So a project in a clean git
 * repository costs one stat per file even the first time; elsewhere, the first command ever reads
 * each file once, and no later one (in any process) reads it again while its stat is unchanged.
 * Recording stats the tree again, reads only the paths whose stat changed, and copies from the
 * user's objects the earlier content of the few files the command changed, so that a later
 * {@code git gc} of the user's repository cannot break a checkpoint.
 *
 * <p>Where the kernel reports file changes (Linux's inotify), the first walk also watches each
 * directory, and later snapshots and recordings re-stat only the paths something touched since
 * the scan they start from, as git's fsmonitor does: a command costs what it changed. When the
 * notifications cannot be trusted (their queue overflowed, a watch could not be added, an ignore
 * file changed), the whole tree is walked again. Waymark takes the first scan in the background as
 * it opens a project ({@link ShadowStore#prepareShellCapture}).
 *
 * <p>The {@code .gitignore} rules are those of the command's start, so a command that edits a
 * {@code .gitignore} does not make ignored files look created or deleted. What another tab wrote
 * while the command ran is not taken for the command's. Before the command runs, a journal notes
 * it: if Waymark is killed before the changes are kept, they are recorded when the tab is opened
 * again. Processes the command left running are noticed; what they change later is recorded at
 * the tab's next command or at the end of the turn.
 *
 * <p>Not recorded, and listed in {@link WorkTreeChanges#skipped()} when they changed: files over
 * the size limit, unreadable files, and excluded or ignored entries (a directory is reported when
 * its own stat changed; what changed inside it is not known).
 */
public final class WorkTreeSnapshot {
  private final CommandCapture capture;
  private final TabRecords turn;
  private CommandCapture.Before before;
  private CommandCapture.After after;

  WorkTreeSnapshot(CommandCapture capture, TabRecords turn, CommandCapture.Before before) {
    this.capture = capture;
    this.turn = turn;
    this.before = before;
  }

  /** How many files the snapshot covers. */
  public int fileCount() {
    return before.fileCount();
  }

  /**
   * How many files taking it looked at: every one after a whole walk; with file notifications, only
   * those touched since the scan it started from.
   */
  public int examinedCount() {
    return before.examined();
  }

  /** How many files taking it had to read: those neither the cache nor the user's index knew. */
  public int storedCount() {
    return before.stored();
  }

  /** Whether taking it read the user's git index (not needed while the index is as the stat cache last saw it). */
  public boolean readUsersIndex() {
    return before.readUsersIndex();
  }

  /**
   * Notes that the command started, leading a session of its own ({@link CommandMark#leading}): its
   * jobs are found by that session too, in this process and, after a kill, in the next.
   */
  public void commandStarted(CommandMark leading) {
    before = capture.started(before, leading);
  }

  /** The command line to run for {@code argv}: as it is, or entered in the layer the command runs in. */
  public List<String> enter(List<String> argv) {
    return before.enter(argv);
  }

  /** Compares the project with the snapshot, records every change in the turn and keeps it under the tag. */
  public WorkTreeChanges recordChanges() {
    after = capture.after(turn, before);
    return after.changes();
  }

  /** {@link #recordChanges()}, told how the command ended (a command in a layer needs it to apply its changes). */
  public WorkTreeChanges recordChanges(CommandCapture.Ended ended) {
    after = capture.after(turn, before, ended);
    return after.changes();
  }

  /** Changes found but not made in the project (they clashed with someone else's), with why; after {@link #recordChanges}. */
  public List<String> notApplied() {
    return after == null ? List.of() : after.notApplied();
  }

  /** The tag that keeps the versions of {@link #notApplied()}. */
  public Optional<String> rescueTag() {
    return after == null ? Optional.empty() : after.rescueTag();
  }

  /** How the command's changes are found: what its caller tells the user depends on it. */
  public CommandCapture.Way way() {
    return capture.way();
  }

  /** Whether the command, ended with {@code exitCode} and {@code output}, never ran because its layer could not be set up. */
  public boolean neverRan(int exitCode, String output) {
    return capture.neverRan(exitCode, output);
  }

  /**
   * Notes processes the command left running: what they change from now on is recorded at the
   * tab's next command or when its turn ends. Call after {@link #recordChanges()}.
   */
  public void leftRunning(List<ProcessHandle> processes) {
    if (after != null) {
      capture.leftRunning(turn, after, processes);
    }
  }
}
