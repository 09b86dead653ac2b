package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The capture of one {@code run_shell} command's file changes, through its life: chosen for the
 * turn, the picture before, the command line entered in it, and one call after the command that
 * records what it changed and returns it as a value ({@link Recorded}). {@link #NONE} captures
 * nothing: a command with no turn to record in, or a read-only one.
 */
interface CommandRecording {
  CommandRecording NONE = enteringOnly(UnaryOperator.identity());

  /** Records nothing, as {@link #NONE}, but enters the command line with {@code entering} (a read-only command in an isolated tab's view). */
  static CommandRecording enteringOnly(UnaryOperator<List<String>> entering) {
    return new CommandRecording() {
      @Override
      public Optional<String> noLayer() {
        return Optional.empty();
      }

      @Override
      public Optional<CommandSlot> slot() {
        return Optional.empty();
      }

      @Override
      public Optional<String> before(long maxFileSize, CommandMark mark) {
        return Optional.empty();
      }

      @Override
      public List<String> enter(List<String> commandLine) {
        return entering.apply(commandLine);
      }

      @Override
      public void started(ShellRun run) {
      }

      @Override
      public Recorded after(ShellRun run, ShellRun.Ended ended, List<Path> mountPoints) {
        return Recorded.NOTHING;
      }
    };
  }

  /** Why a sandboxed command gets no layer of its own here, when it does not. */
  Optional<String> noLayer();

  /** The project's slot the command must hold while it runs, when commands captured so take turns and it is not inside one. */
  Optional<CommandSlot> slot();

  /** Takes the picture the command's changes are found against; why the command may not run, when it cannot be taken. */
  Optional<String> before(long maxFileSize, CommandMark mark);

  /** The command line to run: as it is, or entered in the layer the command runs in. */
  List<String> enter(List<String> commandLine);

  /** Told that the command started: a leader of a session of its own has its jobs found by it too. */
  void started(ShellRun run);

  /** After the command: what it changed, recorded in the turn and kept under its tag, and what it left running. */
  Recorded after(ShellRun run, ShellRun.Ended ended, List<Path> mountPoints);

  /**
   * What a command did to the project, as recorded after it.
   *
   * @param notRun why the command never ran (what isolates it could not be set up), when so
   * @param notApplied changes found but not made in the project, as they clashed with someone else's
   * @param rescueTag the tag that keeps the versions of {@code notApplied}
   * @param stillRunning the processes the command left running, when they were looked for
   * @param leftRunningNote what becomes of what those processes change
   * @param notRecorded why the changes could not be applied or recorded, when they could not
   */
  record Recorded(Optional<String> notRun, WorkTreeChanges changes, List<String> notApplied,
      Optional<String> rescueTag, Optional<List<ProcessHandle>> stillRunning, String leftRunningNote,
      Optional<String> notRecorded) {
    static final Recorded NOTHING = new Recorded(Optional.empty(), new WorkTreeChanges(List.of(), List.of()),
        List.of(), Optional.empty(), Optional.empty(), "", Optional.empty());
  }
}
