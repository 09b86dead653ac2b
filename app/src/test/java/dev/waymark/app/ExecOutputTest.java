package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.tool.ToolResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/** What exec prints of a shell command's result besides its first line. */
class ExecOutputTest {
  @Test
  void whatACommandChangedThatUndoWillNotRestoreIsPrintedForTheScriptToSee() {
    StringBuilder result = new StringBuilder("(no output)\n[exit code 0]\nFiles changed (recorded; undo restores them):\n"
        + "  created a.txt\nChanged but not recorded (undo will not restore them):\n");
    for (int i = 0; i < 12; i++) {
      result.append("  big").append(i).append(".bin: larger than the 10485760-byte limit for undoable files\n");
    }

    var lines = ExecCommand.notRecorded(result.toString());

    assertThat(lines).hasSize(12);
    assertThat(lines.get(0)).isEqualTo("    Changed but not recorded (undo will not restore them):");
    assertThat(lines.get(1)).isEqualTo("      big0.bin: larger than the 10485760-byte limit for undoable files");
    assertThat(lines.get(11)).isEqualTo("      … and 2 more");
    assertThat(ExecCommand.notRecorded("hello\n[exit code 0]\n")).isEmpty();
  }

  @Test
  void aCommandWhoseChangesCouldNotBeRecordedFailsTheRunThoughItsTurnFinished() throws Exception {
    var events = new LinkedBlockingQueue<Event>(List.of(
        new Event.TurnStarted(1, 0, "build it"),
        new Event.ToolCallFinished(1, new ToolCallView("c1", "run_shell", "{}"), ToolResult.NOT_RECORDED
            + "the command's file changes could not be applied or recorded: see below]\n[exit code 0]\n", true, List.of(),
            Optional.of(ErrorKind.NOT_RECORDED)),
        new Event.TurnFinished(1, TurnStatus.DONE, Optional.empty())));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    int status = new ExecCommand().report(null, events, new PrintWriter(out), new PrintWriter(err), null, s -> s,
        new ExecCommand.LastMessage());

    assertThat(status).isEqualTo(1);
    assertThat(err.toString()).contains("could not be applied or recorded");
  }

  @Test
  void aCheckpointThatCouldNotBeStoredFailsTheRunThoughItsTurnFinished() throws Exception {
    var events = new LinkedBlockingQueue<Event>(List.of(
        new Event.TurnStarted(1, 0, "build it"),
        new Event.Error(ErrorKind.STORE_IO, "Checkpoint #1 could not be stored: Could not write the shadow repository: No space left on device"),
        new Event.TurnFinished(1, TurnStatus.DONE, Optional.empty())));
    StringWriter err = new StringWriter();

    int status = new ExecCommand().report(null, events, new PrintWriter(new StringWriter()), new PrintWriter(err), null,
        s -> s, new ExecCommand.LastMessage());

    assertThat(status).isEqualTo(1);
    assertThat(err.toString()).contains("could not be stored");
  }
}
