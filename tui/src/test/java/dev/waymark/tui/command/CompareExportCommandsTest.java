package dev.waymark.tui.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.tui.command.SlashCommand.Parsed;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code /diff A B} and {@code /export}: parsed into Compare and Export, bad names answered in one line. */
class CompareExportCommandsTest {
  private static Parsed parse(String text) {
    return SlashCommand.parse(text, 4, "auto-name");
  }

  @Test
  void twoCheckpointsOfAnyTabAreCompared() {
    assertThat(parse("/diff 1 3")).isEqualTo(new Parsed.ForTab(List.of(new Command.Compare(CheckpointRef.of(1),
        CheckpointRef.of(3), List.of())), false));
    assertThat(parse("/checkpoint diff #2 2:live -- a.txt src/")).isEqualTo(new Parsed.ForTab(List.of(
        new Command.Compare(CheckpointRef.of(2), new CheckpointRef("2", "live"), List.of("a.txt", "src/"))), false));
    assertThat(parse("/diff before-refactor t1a2b:7")).isEqualTo(new Parsed.ForTab(List.of(new Command.Compare(
        new CheckpointRef("", "before-refactor"), new CheckpointRef("t1a2b", "7"), List.of())), false));
    assertThat(parse("/diff")).isEqualTo(new Parsed.ForTab(List.of(Command.Diff.of(4)), false)); // the disk, as before
    assertThat(parse("/diff 1 -- a.txt")).isInstanceOf(Parsed.Invalid.class);
    assertThat(((Parsed.Invalid) parse("/diff 1 :3")).message()).startsWith("Not a checkpoint: \":3\"");
    assertThat(((Parsed.Invalid) parse("/diff 1 2 3")).message()).startsWith("Usage: /diff [N]");
  }

  @Test
  void exportNamesABranchAndMaybeAPath() {
    assertThat(parse("/export wip")).isEqualTo(new Parsed.ForTab(List.of(new Command.Export(null, null, "wip", false,
        false)), false));
    assertThat(parse("/export wip 2..live --squash --force")).isEqualTo(new Parsed.ForTab(List.of(new Command.Export(
        CheckpointRef.of(2), CheckpointRef.live(), "wip", true, true)), false));
    assertThat(parse("/export wip ..3")).isEqualTo(new Parsed.ForTab(List.of(new Command.Export(null,
        CheckpointRef.of(3), "wip", false, false)), false));
    assertThat(parse("/export")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/export wip 3")).isInstanceOf(Parsed.Invalid.class);
  }
}
