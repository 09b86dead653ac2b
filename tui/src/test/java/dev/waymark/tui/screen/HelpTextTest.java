package dev.waymark.tui.screen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.command.CommandCatalog;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.text.Line;
import org.junit.jupiter.api.Test;

class HelpTextTest {
  @Test
  void everyCheckpointCommandTheHelpListsSaysWhatItDoes() {
    for (String usage : SlashCommand.USAGE.stream().filter(u -> u.startsWith("/checkpoint")).toList()) {
      assertThat(HelpText.explain(usage)).as(usage).isNotBlank();
    }
  }

  @Test
  void shiftTabIsSaidToReachAutoAsItDoes() {
    String help = HelpText.render(KeyMap.defaults(), CommandCatalog.BUILT_IN, 200)
        .stream().map(Line::text).reduce("", (a, b) -> a + "\n" + b);
    assertThat(help).contains("plan → ask → auto-edit → auto (when sandboxed), never yolo");
  }

  @Test
  void theModesParagraphSaysWhatEveryModeDoes() {
    String help = String.join(" ", HelpText.render(KeyMap.defaults(), CommandCatalog.BUILT_IN, 400).stream().map(Line::text)
        .toList());
    String modes = help.substring(help.indexOf("Modes (Shift+Tab"));
    for (ApprovalMode mode : ApprovalMode.values()) {
      assertThat(modes).as(mode.label()).containsPattern("[:;] " + mode.label() + " (runs|asks)");
    }
  }
}
