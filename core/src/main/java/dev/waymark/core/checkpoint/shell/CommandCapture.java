package dev.waymark.core.checkpoint.shell;

import java.util.List;

/**
 * How one command's changes to the project are found and handed to its checkpoint: the seam
 * between the facade, which runs a command inside a turn, and a way of finding what it changed.
 *
 * <p>{@link ShellChangeTracker} is the implementation for a command that writes the project
 * itself: it compares the project after the command with a stat scan taken before it. A command
 * that writes an isolated copy-on-write layer of the project would be another: what it changed is
 * its layer.
 *
 * <p>The contract, whatever the implementation:
 * <ol>
 *   <li>{@link #before} is called just before the command starts (its caller holds the project's
 *       {@link CommandSlot}); from then on, a crash of this process must not lose the command's
 *       changes (today's capture keeps a {@link ShellJournal}).
 *   <li>{@link #after} is called once the command ended. It finds each path the command created,
 *       changed or deleted; stores in the shadow repository the content each path holds now and
 *       the content it held before (the blobs a {@link dev.waymark.core.checkpoint.lib.FileVersion}
 *       names must be there); and hands the list of
 *       {@link dev.waymark.core.checkpoint.lib.FileChange}s (path, what it held before, what it
 *       holds now: content blob, kind and mode, a link's target as its content, or
 *       {@code FileVersion.ABSENT} for deleted) to {@link TabRecords#recordStoredChanges}, which
 *       records them in the checkpoint and names those it refused. It then calls
 *       {@link TabRecords#persist} when anything was recorded, and returns what was recorded and
 *       what was skipped, with why.
 *   <li>{@link #leftRunning} is told the processes the command left behind, after {@link #after}.
 * </ol>
 */
public interface CommandCapture {
  /** The project as a command starts, as the capture will compare it. */
  interface Before {
    /** How many files the capture covers. */
    int fileCount();

    /** How many files taking it looked at. */
    int examined();

    /** How many files taking it had to read and store. */
    int stored();

    /** Whether taking it read the user's git index. */
    boolean readUsersIndex();
  }

  /** What {@link #after} found. */
  interface After {
    /** The changes recorded in the checkpoint, and those skipped with why. */
    WorkTreeChanges changes();
  }

  /** Takes what the command about to run for {@code checkpoint} will be compared with. */
  Before before(TabRecords checkpoint, long maxFileSize, CommandMark mark);

  /**
   * Told that the command started as the leader of a session of its own ({@link CommandMark#leading}):
   * its jobs are found by that session too, here and after a kill. Returns the start to hand to
   * {@link #after}.
   */
  default Before started(Before before, CommandMark leading) {
    return before;
  }

  /** Finds what the command changed since {@code before} and records it in {@code checkpoint} (see the contract). */
  After after(TabRecords checkpoint, Before before);

  /** Notes the processes the command left running: what they change later is the checkpoint's too. */
  void leftRunning(TabRecords checkpoint, After after, List<ProcessHandle> processes);
}
