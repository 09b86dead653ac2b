package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.wording.Wording;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A command's changes captured in the running turn: {@link CommandRecording} through a {@link WorkTreeSnapshot}. */
final class TurnRecording implements CommandRecording {
  private static final Logger LOG = LoggerFactory.getLogger(TurnRecording.class);

  private final Turn turn;
  private final Turn.ShellCapture chosen;
  private final String command;
  /** Taken by {@link #before}, which is called first. */
  private WorkTreeSnapshot snapshot;

  TurnRecording(Turn turn, Turn.ShellCapture chosen, String command) {
    this.turn = turn;
    this.chosen = chosen;
    this.command = command;
  }

  /**
   * How the turn captures a command that runs in the sandbox {@code bwrap} (empty: outside it): in a
   * layer of its own where it can, by observation otherwise; {@link CommandRecording#NONE} without a turn.
   */
  static CommandRecording choose(Turn turn, Optional<Path> bwrap, String command) {
    return turn == null ? NONE : new TurnRecording(turn, turn.shellCapture(bwrap), command);
  }

  @Override
  public Optional<String> noLayer() {
    return chosen.noLayer();
  }

  @Override
  public Optional<CommandSlot> slot() {
    return chosen.capture().takesTurns() && !turn.insideACommandOnThisProject() ? Optional.of(turn.commandSlot())
        : Optional.empty();
  }

  @Override
  public Optional<String> before(long maxFileSize, CommandMark mark) {
    try {
      snapshot = turn.snapshotWorkTree(chosen.capture(), maxFileSize, mark);
      return Optional.empty();
    } catch (CheckpointException e) {
      return Optional.of(Wording.whyNotRun(chosen.capture().way(), e));
    }
  }

  @Override
  public List<String> enter(List<String> commandLine) {
    return snapshot.enter(commandLine);
  }

  @Override
  public void started(ShellRun run) {
    if (run.sessionLeader) {
      snapshot.commandStarted(run.mark.leading(run.process.toHandle()));
    }
  }

  @Override
  public Recorded after(ShellRun run, ShellRun.Ended ended, List<Path> mountPoints) {
    Optional<String> notRun = Optional.empty();
    if (!ended.timedOut() && !ended.cancelled() && snapshot.neverRan(run.process.exitValue(), run.output.text())) {
      notRun = Optional.of(Wording.neverRan(snapshot.way()));
    }
    List<List<ProcessHandle>> seen = new ArrayList<>(); // asked once, when the capture needs it or after
    Supplier<List<ProcessHandle>> stillRunning = () -> {
      if (seen.isEmpty()) {
        seen.add(run.stillRunning());
      }
      return seen.get(0);
    };
    // what was recorded before a failure is said too, as it is in the checkpoint
    WorkTreeChanges changes = new WorkTreeChanges(List.of(), List.of());
    List<String> notApplied = List.of();
    Optional<String> rescueTag = Optional.empty();
    try {
      // kept under the tag now, not only when the turn ends
      changes = snapshot.recordChanges(new CommandCapture.Ended(mountPoints, stillRunning));
      notApplied = snapshot.notApplied();
      rescueTag = snapshot.rescueTag();
      List<ProcessHandle> left = stillRunning.get();
      if (!left.isEmpty()) {
        snapshot.leftRunning(left);
      }
      return new Recorded(notRun, changes, notApplied, rescueTag, Optional.of(left), Wording.leftRunningNote(snapshot.way()),
          Optional.empty());
    } catch (CheckpointException e) {
      LOG.warn("could not record the changes of {}", command, e);
      return new Recorded(notRun, changes, notApplied, rescueTag, Optional.empty(), "",
          Optional.of(Wording.whyNotRecorded(snapshot.way(), e)));
    }
  }
}
