package dev.waymark.tui.screen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.tui.command.SlashCommand;
import org.junit.jupiter.api.Test;

class HelpTextTest {
  @Test
  void everyCheckpointCommandTheHelpListsSaysWhatItDoes() {
    for (String usage : SlashCommand.USAGE.stream().filter(u -> u.startsWith("/checkpoint")).toList()) {
      assertThat(HelpText.explain(usage)).as(usage).isNotBlank();
    }
  }
}
