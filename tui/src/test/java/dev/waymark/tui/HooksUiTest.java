package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.hook.HookCommand;
import dev.waymark.core.hook.HookEvent;
import dev.waymark.core.hook.HookMatcher;
import dev.waymark.core.hook.HookRunner;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hooks in the interface: {@code /hooks} says what runs and where it was configured; a block is said in the chat. */
class HooksUiTest {
  @TempDir Path temp;

  private VirtualUi start(String script, HookMatcher... matchers) throws Exception {
    return new VirtualUi(temp, 140, 30, ApprovalMode.YOLO, script, null, null, CustomCommands.NONE,
        new Hooks(List.of(matchers), new HookRunner(Optional.empty(), 1 << 20)));
  }

  @Test
  void slashHooksListsEachHookWithItsEventToolsTimeoutAndSettingsFile() throws Exception {
    try (VirtualUi ui = start("{'responses':[]}", new HookMatcher(HookEvent.PRE_TOOL_USE, "Bash",
        List.of(new HookCommand("./guard.sh", Duration.ofSeconds(30), "user settings /home/u/.config/waymark/settings.json"))))) {
      ui.send("/hooks");
      String shown = ui.waitFor("guard.sh");
      assertThat(shown).contains("PreToolUse Bash: ./guard.sh", "timeout 30 s", "user settings /home/u/.config/waymark/settings.json");
    }
  }

  @Test
  void aCallBlockedByAPreToolUseHookIsSaidWithItsReasonAndTheTurnGoesOn() throws Exception {
    try (VirtualUi ui = start("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':'echo hi > hi.txt'}}]},"
        + "{'text':'Understood.'}]}", new HookMatcher(HookEvent.PRE_TOOL_USE, "run_shell",
        List.of(new HookCommand("echo 'no shell today' >&2; exit 2", Duration.ofSeconds(30),
            "project settings /p/.waymark/settings.json"))))) {
      ui.send("make hi");
      String done = ui.waitFor(s -> s.contains("Understood.") && s.contains("ready · #1"), "the turn");
      assertThat(done).as("whose hook, and what it runs").contains("The project's PreToolUse hook \"echo 'no shell today'",
        "no shell today").doesNotContain("user's");
      assertThat(ui.project.resolve("hi.txt")).doesNotExist();
    }
  }
}
