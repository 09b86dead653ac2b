package dev.waymark.tui.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.context.InstructionFiles;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.tui.command.SlashCommand.Parsed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    assertThat(commands("/checkpoint undo 2")).containsExactly(Command.Undo.to(2));
    assertThat(commands("/checkpoint redo")).containsExactly(new Command.Redo());
    assertThat(commands("/checkpoint save")).containsExactly(new Command.Save("auto-name"));
    assertThat(commands("/checkpoint save before-refactor")).containsExactly(new Command.Save("before-refactor"));
    assertThat(commands("/checkpoint goto 7")).containsExactly(new Command.GoTo(7));
    assertThat(commands("/checkpoint diff")).containsExactly(Command.Diff.of(4));
    assertThat(commands("/checkpoint diff 1")).containsExactly(Command.Diff.of(1));
    assertThat(commands("/checkpoint restore 2")).containsExactly(new Command.Restore(2, RestoreScope.BOTH, false));
    assertThat(commands("/checkpoint restore 2 files")).containsExactly(new Command.Restore(2, RestoreScope.FILES, false));
    assertThat(commands("/checkpoint  restore  2  conversation ")).containsExactly(
        new Command.Restore(2, RestoreScope.CONVERSATION, false));
  }

  @Test
  void anIsolatedTabIsOpenedLandedAndDiscardedByCommand() {
    assertThat(parse("/tab isolated")).isInstanceOf(Parsed.OpenIsolated.class);
    assertThat(commands("/land")).containsExactly(new Command.Land());
    assertThat(commands("/discard")).containsExactly(new Command.Discard());
    assertThat(commands("/land --keep-isolated")).containsExactly(new Command.Land(true));
    assertThat(parse("/land now")).isInstanceOfSatisfying(Parsed.Invalid.class,
        invalid -> assertThat(invalid.message()).contains("/land [--keep-isolated]"));
    assertThat(parse("/tab elsewhere")).isInstanceOfSatisfying(Parsed.Invalid.class,
        invalid -> assertThat(invalid.message()).contains("/tab isolated"));
    assertThat(SlashCommand.completions("/tab i")).containsExactly("/tab isolated");
  }

  @Test
  void undoRedoGotoAndRestoreTakeForceAnywhereAndGotoTakesASaveName() {
    assertThat(commands("/checkpoint undo --force")).containsExactly(new Command.Undo(OptionalInt.empty(), true));
    assertThat(commands("/checkpoint undo --force 2")).containsExactly(new Command.Undo(OptionalInt.of(2), true));
    assertThat(commands("/checkpoint redo --force")).containsExactly(new Command.Redo(true));
    assertThat(commands("/checkpoint goto 3 --force")).containsExactly(new Command.GoTo(3, true));
    assertThat(commands("/checkpoint goto release")).containsExactly(new Command.GoToSaved("release", false));
    assertThat(commands("/checkpoint restore 2 files --force")).containsExactly(new Command.Restore(2, RestoreScope.FILES, true));
    assertThat(parse("/checkpoint diff --force")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("--force"));
  }

  @Test
  void revertTakesOneCheckpointARangeOrFilesAndRestoreTakesFiles() {
    assertThat(commands("/checkpoint revert 2")).containsExactly(new Command.Revert(2, 2, List.of(), false));
    assertThat(commands("/checkpoint revert #2..4 --force")).containsExactly(new Command.Revert(2, 4, List.of(), true));
    assertThat(commands("/checkpoint revert 3 -- src/a.txt b.txt")).containsExactly(
        new Command.Revert(3, 3, List.of("src/a.txt", "b.txt"), false));
    assertThat(commands("/checkpoint restore 1 -- a.txt --force")).containsExactly(
        new Command.RestoreFiles(1, List.of("a.txt", "--force"), false));
    assertThat(commands("/checkpoint restore 1 --force -- a.txt")).containsExactly(
        new Command.RestoreFiles(1, List.of("a.txt"), true));
    assertThat(parse("/checkpoint revert 4..2")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("2..4"));
    assertThat(parse("/checkpoint revert")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Usage: /checkpoint revert"));
    assertThat(parse("/checkpoint restore 1 --")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Name the files"));
    assertThat(parse("/checkpoint goto 1 -- a.txt")).isInstanceOf(Parsed.Invalid.class);
  }

  @Test
  void aSaveMovesByForceAndIsDeletedByName() {
    assertThat(commands("/checkpoint save four --force")).containsExactly(new Command.Save("four", true));
    assertThat(commands("/checkpoint save --delete four")).containsExactly(new Command.DeleteSave("four"));
    assertThat(parse("/checkpoint save --delete")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("--delete NAME"));
  }

  @Test
  void commandsThatMoveLiveKeepTheDraftFirst() {
    assertThat(((Parsed.ForTab) parse("/checkpoint undo")).keepsDraft()).isTrue();
    assertThat(((Parsed.ForTab) parse("/checkpoint goto 2")).keepsDraft()).isTrue();
    assertThat(((Parsed.ForTab) parse("/checkpoint 2")).keepsDraft()).isFalse();
  }

  @Test
  void shortAliasesDoWhatTheirCheckpointCommandsDo() {
    assertThat(parse("/undo")).isEqualTo(parse("/checkpoint undo"));
    assertThat(parse("/undo 2")).isEqualTo(parse("/checkpoint undo 2"));
    assertThat(parse("/redo")).isEqualTo(parse("/checkpoint redo"));
    assertThat(parse("/diff")).isEqualTo(parse("/checkpoint diff"));
    assertThat(parse("/diff 1")).isEqualTo(parse("/checkpoint diff 1"));
    assertThat(parse("/rewind")).isEqualTo(new Parsed.Rewind());
    assertThat(parse("/revert 2")).isEqualTo(parse("/checkpoint revert 2"));
    assertThat(parse("/revert #2..4 --force -- a.txt")).isEqualTo(parse("/checkpoint revert #2..4 --force -- a.txt"));
    assertThat(parse("/revert")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Usage: /revert").doesNotContain("/checkpoint"));
    assertThat(SlashCommand.complete("/rev")).isEqualTo("/revert ");
    assertThat(parse("/undo x")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Not a checkpoint number"));
    assertThat(parse("/redo 3")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Usage: /redo"));
    assertThat(parse("/rewind 3")).isInstanceOf(Parsed.Invalid.class);
  }

  @Test
  void tabCommandsListAndReopenClosedTabs() {
    assertThat(parse("/tab")).isEqualTo(new Parsed.TabCommand(false, -1));
    assertThat(parse("/tab reopen")).isEqualTo(new Parsed.TabCommand(true, -1));
    assertThat(parse("/tab reopen 2")).isEqualTo(new Parsed.TabCommand(true, 2));
    assertThat(parse("/tab reopen two")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Not a tab number"));
    assertThat(parse("/tab close")).isInstanceOf(Parsed.Invalid.class);
  }

  @Test
  void modeModelAndStatus() {
    assertThat(parse("/mode")).isEqualTo(new Parsed.Mode(null));
    assertThat(parse("/mode PLAN")).isEqualTo(new Parsed.Mode("plan"));
    assertThat(parse("/mode auto_edit")).isEqualTo(new Parsed.Mode("auto-edit"));
    assertThat(parse("/mode sudo")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("sudo", "plan, ask, auto-edit, auto or yolo"));
    assertThat(parse("/mode ask now")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Usage: /mode [plan|ask|auto-edit|auto|yolo]"));
    assertThat(parse("/model")).isEqualTo(new Parsed.Model(null));
    assertThat(parse("/model gpt-4.1")).isEqualTo(new Parsed.Model("gpt-4.1"));
    assertThat(parse("/model a b")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/status")).isEqualTo(new Parsed.Status());
    assertThat(parse("/status now")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/stauts")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Unknown command /stauts. Did you mean /status?"));
  }

  @Test
  void copyTakesAnOptionalCodeBlockAndExportChatAFileThatMayHoldSpaces() {
    assertThat(parse("/copy")).isEqualTo(new Parsed.Copy(0));
    assertThat(parse("/copy 2")).isEqualTo(new Parsed.Copy(2));
    assertThat(parse("/copy 0")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/copy 1 2")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/copy -1")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/export-chat notes.md")).isEqualTo(new Parsed.ExportChat("notes.md", false));
    assertThat(parse("/export-chat my notes.md --force")).isEqualTo(new Parsed.ExportChat("my notes.md", true));
    assertThat(parse("/export-chat --force ~/chat.md")).isEqualTo(new Parsed.ExportChat("~/chat.md", true));
    assertThat(parse("/export-chat")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).startsWith("Usage: /export-chat FILE [--force]"));
    assertThat(parse("/export-chat --force")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/resume")).isEqualTo(new Parsed.Resume());
    assertThat(parse("/resume work")).isEqualTo(new Parsed.Session("load", "work"));
    assertThat(parse("/resume a b")).isInstanceOf(Parsed.Invalid.class);
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
    assertThat(parse("/checkpoint goto 1 2")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("Usage: /checkpoint goto N|NAME"));
    assertThat(parse("/checkpoint restore 2 everything")).isInstanceOfSatisfying(Parsed.Invalid.class,
        i -> assertThat(i.message()).contains("everything"));
    assertThat(parse("/checkpoint frobnicate")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/checkpoint 99999999999")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/help me")).isInstanceOf(Parsed.Invalid.class);
  }

  @Test
  void tabCompletesToTheLongestCommonPrefix() {
    assertThat(SlashCommand.complete("/che")).as("a whole command: a space to type its argument").isEqualTo("/checkpoint ");
    assertThat(SlashCommand.complete("/ses")).isEqualTo("/session ");
    assertThat(SlashCommand.complete("/un")).isEqualTo("/undo ");
    assertThat(SlashCommand.complete("/re")).isEqualTo("/re");
    assertThat(SlashCommand.completions("/re")).containsExactly("/redo", "/revert", "/rewind", "/resume", "/reasoning");
    assertThat(SlashCommand.complete("/checkpoint r")).isEqualTo("/checkpoint re");
    assertThat(SlashCommand.complete("/checkpoint red")).isEqualTo("/checkpoint redo ");
    assertThat(SlashCommand.complete("/q")).isEqualTo("/quit ");
    assertThat(SlashCommand.complete("/zzz")).isEqualTo("/zzz");
    assertThat(SlashCommand.completions("/checkpoint r")).containsExactly("/checkpoint redo", "/checkpoint rescued", "/checkpoint restore", "/checkpoint revert");
  }

  @Test
  void aDoubleSlashIsAMessageNotACommand() {
    assertThat(SlashCommand.isCommand("//path is a message")).isFalse();
    assertThat(SlashCommand.isCommand("/help")).isTrue();
  }

  @Test
  void clearStartsAFreshConversationAsACheckpointKeepingTheFilesAndTheTree() {
    assertThat(commands("/clear")).containsExactly(new Command.Restore(0, RestoreScope.CONVERSATION, false));
    assertThat(parse("/clear all")).isInstanceOf(Parsed.Invalid.class);
  }

  @Test
  void compactAsksTheTabToSummariseAndReasoningTogglesTheThoughts() {
    assertThat(commands("/compact")).containsExactly(new Command.Compact());
    assertThat(parse("/compact now")).isInstanceOf(Parsed.Invalid.class);
    assertThat(parse("/reasoning")).isInstanceOf(Parsed.ToggleReasoning.class);
  }

  @Test
  void permissionsListsTheRulesAndRemovesOneByItsNumber() {
    assertThat(parse("/permissions")).isEqualTo(new Parsed.PermissionsCommand(0));
    assertThat(parse("/permissions remove 2")).isEqualTo(new Parsed.PermissionsCommand(2));
    for (String bad : List.of("/permissions remove", "/permissions remove 0", "/permissions remove x", "/permissions add read_file")) {
      assertThat(parse(bad)).as(bad).isInstanceOfSatisfying(Parsed.Invalid.class,
          i -> assertThat(i.message()).contains("Usage: /permissions"));
    }
    assertThat(SlashCommand.complete("/perm")).isEqualTo("/permissions ");
  }

  @Test
  void aCustomCommandBecomesItsPromptButNeverShadowsABuiltInOne(@TempDir Path temp)
      throws Exception {
    Path dir = Files.createDirectories(temp.resolve("commands"));
    Files.writeString(dir.resolve("undo.md"), "never run\n");
    Files.writeString(dir.resolve("fix.md"), "Fix $ARGUMENTS.\n");
    var custom = CustomCommands.of(Optional.empty(), temp);

    assertThat(SlashCommand.parse("/fix the  build\nplease", 0, "x", custom))
        .isEqualTo(new SlashCommand.Parsed.Prompt("Fix the  build\nplease.", "/fix the  build\nplease"));
    assertThat(SlashCommand.parse("/undo", 0, "x", custom)).isInstanceOf(SlashCommand.Parsed.ForTab.class);
    assertThat(SlashCommand.parse("/init", 0, "x", custom)).isEqualTo(
        new SlashCommand.Parsed.Prompt(InstructionFiles.INIT_PROMPT, "/init"));
    assertThat(SlashCommand.parse("/fix", 0, "x")).isInstanceOf(SlashCommand.Parsed.Invalid.class);
  }
}
