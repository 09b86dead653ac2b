package dev.waymark.tui.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.agent.Command;
import dev.waymark.core.checkpoint.RestoreMode;
import dev.waymark.tui.command.SlashCommand.Parsed;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlashCommandTest {
  private static Parsed parse(String text) {
    return SlashCommand.parse(text, 4, "auto-name");
  }

  private static List<Command> commands(String text) {
    return ((Parsed.ForTab) parse(text)).commands();
  }

  @Test
  void checkpointCommandsBecomeTabCommands() {
    assertThat(commands("/checkpoint")).containsExactly(new Command.List());
    assertThat(commands("/checkpoint list")).containsExactly(new Command.List());
    assertThat(commands("/checkpoint 3")).containsExactly(Command.View.at(3));
    assertThat(commands("/checkpoint #3")).containsExactly(Command.View.at(3));
    assertThat(commands("/checkpoint live")).containsExactly(Command.View.live());
    assertThat(commands("/checkpoint undo")).containsExactly(Command.Undo.one());
    assertThat(commands("/checkpoint undo 2")).containsExactly(new Command.Undo(2));
    assertThat(commands("/checkpoint redo")).containsExactly(new Command.Redo());
    assertThat(commands("/checkpoint save")).containsExactly(new Command.Save("auto-name"));
    assertThat(commands("/checkpoint save before-refactor")).containsExactly(new Command.Save("before-refactor"));
    assertThat(commands("/checkpoint goto 7")).containsExactly(new Command.GoTo(7));
    assertThat(commands("/checkpoint diff")).containsExactly(new Command.Diff(4));
    assertThat(commands("/checkpoint diff 1")).containsExactly(new Command.Diff(1));
    assertThat(commands("/checkpoint restore 2")).containsExactly(new Command.Restore(2, RestoreMode.BOTH, false));
    assertThat(commands("/checkpoint restore 2 files")).containsExactly(new Command.Restore(2, RestoreMode.FILES, false));
    assertThat(commands("/checkpoint  restore  2  conversation ")).containsExactly(
        new Command.Restore(2, RestoreMode.CONVERSATION, false));
  }

  @Test
  void commandsThatMoveLiveKeepTheDraftFirst() {
    assertThat(((Parsed.ForTab) parse("/checkpoint undo")).keepsDraft()).isTrue();
    assertThat(((Parsed.ForTab) parse("/checkpoint goto 2")).keepsDraft()).isTrue();
    assertThat(((Parsed.ForTab) parse("/checkpoint 2")).keepsDraft()).isFalse();
  }

  @Test
  void helpAndQuit() {
    assertThat(parse("/help")).isEqualTo(new Parsed.Help());
    assertThat(parse("/quit")).isEqualTo(new Parsed.Quit());
  }

  @Test
  void badInputIsAOneLineErrorThatDoesNothing() {
    assertThat(parse("/nope")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Unknown command /nope", "/help"));
    assertThat(parse("/checkpoint goto")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Usage: /checkpoint goto N"));
    assertThat(parse("/checkpoint goto x")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Not a checkpoint number"));
    assertThat(parse("/checkpoint restore 2 everything")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("everything"));
    assertThat(parse("/checkpoint frobnicate")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/checkpoint 99999999999")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/help me")).isInstanceOf(Parsed.Invalid.class);
  }

  @Test
  void tabCompletesToTheLongestCommonPrefix() {
    assertThat(SlashCommand.complete("/che")).isEqualTo("/checkpoint");
    assertThat(SlashCommand.complete("/checkpoint r")).isEqualTo("/checkpoint re");
    assertThat(SlashCommand.complete("/checkpoint red")).isEqualTo("/checkpoint redo ");
    assertThat(SlashCommand.complete("/q")).isEqualTo("/quit ");
    assertThat(SlashCommand.complete("/zzz")).isEqualTo("/zzz");
    assertThat(SlashCommand.completions("/checkpoint r")).containsExactly("/checkpoint redo", "/checkpoint restore");
  }

  @Test
  void aDoubleSlashIsAMessageNotACommand() {
    assertThat(SlashCommand.isCommand("//path is a message")).isFalse();
    assertThat(SlashCommand.isCommand("/help")).isTrue();
  }
}
