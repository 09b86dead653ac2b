package dev.waymark.core.checkpoint;

/**
 * The project's files as they were before a shell command, every eligible file's content
 * stored: taken by {@link Turn#snapshotWorkTree(long)}, then {@link #recordChanges()} after the
 * command records in the turn what it created, changed or deleted.
 *
 * <p>How it works, like git's index: the store keeps, per project and in memory, a stat cache of
 * path → (size, mtime, permissions, file key, stored blob). Taking a snapshot stats every file
 * the {@link ProjectWalker} walks and reads and stores (in the shadow repository) only the files
 * whose stat changed since the cache last saw them. So the first command after the store opens
 * reads and stores every eligible file once; later ones cost a stat per file plus the files
 * changed in between. Recording stats the tree again and reads only the paths whose stat
 * changed. Files modified within two seconds of a scan are compared by content, as git does for
 * "racily clean" entries, since file times are coarse.
 *
 * <p>Not recorded, and listed in {@link WorkTreeChanges#skipped()} when they changed: files over
 * the size limit, unreadable files, and excluded or ignored entries (a directory is reported when
 * its own stat changed; what changed inside it is not known). Two commands running at once in
 * one project each see the other's changes.
 */
public final class WorkTreeSnapshot {
  private final ShellChangeTracker tracker;
  private final Turn turn;
  private final ShellChangeTracker.Scan before;
  private final int stored;

  WorkTreeSnapshot(ShellChangeTracker tracker, Turn turn, ShellChangeTracker.Scan before, int stored) {
    this.tracker = tracker;
    this.turn = turn;
    this.before = before;
    this.stored = stored;
  }

  /** How many files the snapshot covers. */
  public int fileCount() {
    return before.files().size();
  }

  /**
   * How many files taking it had to read: all of them the first time, later those whose stat
   * changed or that were racily clean. Only content not already stored is written.
   */
  public int storedCount() {
    return stored;
  }

  /** Compares the project with the snapshot and records every change in the turn. */
  public WorkTreeChanges recordChanges() {
    return tracker.recordChanges(turn, before);
  }
}
