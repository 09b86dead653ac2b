package dev.waymark.core.checkpoint.shell;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How one command's changes to the project are found and handed to its checkpoint: the seam
 * between the facade, which runs a command inside a turn, and a way of finding what it changed.
 *
 * <p>{@link ShellChangeTracker} is the implementation for a command that writes the project
 * itself: it compares the project after the command with a stat scan taken before it, and such
 * commands take turns. {@link LayerCapture} is the one for a sandboxed command that writes a
 * copy-on-write layer of its own: what it changed is its layer, applied when it ends, and such
 * commands run at once. Whoever runs a command chooses the capture, then treats both alike.
 *
 * <p>The contract, whatever the implementation:
 * <ol>
 *   <li>{@link #before} is called just before the command starts (its caller holds the project's
 *       {@link CommandSlot} when the capture {@link #takesTurns}); the command line run is
 *       {@link Before#enter}'s; from then on, a crash of this process must not lose the command's
 *       changes (today's capture keeps a {@link ShellJournal}).
 *   <li>{@link #after} is called once the command ended (told the empty directories a sandbox
 *       mounted over and the processes still running, see {@link Ended}). It finds each path the command created,
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

    /** The command line to run for {@code argv}: as it is, or entered in what the capture isolates the command in. */
    default List<String> enter(List<String> argv) {
      return argv;
    }
  }

  /** What {@link #after} found. */
  interface After {
    /** The changes recorded in the checkpoint, and those skipped with why. */
    WorkTreeChanges changes();

    /** Changes found but not made in the project, with why (a capture that applies changes: they clashed). */
    default List<String> notApplied() {
      return List.of();
    }

    /** The tag that keeps the versions of {@link #notApplied()}, when there are any. */
    default Optional<String> rescueTag() {
      return Optional.empty();
    }
  }

  /**
   * How a capture finds a command's changes, which is what the user is told when something goes
   * wrong (the sentences are written by {@code core.wording}, not here).
   */
  enum Way {
    /** The project is compared before and after the command, which writes it itself. */
    COMPARED,
    /** The command writes a copy-on-write layer of its own, applied to the project when it ends. */
    LAYERED,
    /** The command writes an isolated tab's view, which stays apart from the project. */
    VIEWED
  }

  /** How this capture finds a command's changes. */
  default Way way() {
    return Way.COMPARED;
  }

  /**
   * How a command ended, as a capture that isolated it needs to know: the empty directories its
   * sandbox made to mount over (not the command's work), and the processes it left running
   * (asked for only by a capture that needs them then).
   */
  record Ended(List<Path> mountPoints, Supplier<List<ProcessHandle>> stillRunning) {
    public Ended {
      mountPoints = List.copyOf(mountPoints);
    }
  }

  /** Whether commands captured this way take turns on the project (hold its {@link CommandSlot} while they run). */
  default boolean takesTurns() {
    return true;
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

  /** {@link #after(TabRecords, Before)}, told how the command ended. */
  default After after(TabRecords checkpoint, Before before, Ended ended) {
    return after(checkpoint, before);
  }

  /**
   * Whether the command, ended with {@code exitCode} and {@code output}, never ran because what
   * the capture isolates it in ({@link #way}) could not be set up.
   */
  default boolean neverRan(int exitCode, String output) {
    return false;
  }

  /** Notes the processes the command left running: what they change later is the checkpoint's too. */
  void leftRunning(TabRecords checkpoint, After after, List<ProcessHandle> processes);
}
