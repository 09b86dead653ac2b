package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a / command says shows, even when the chat was scrolled up to read something earlier. */
class CommandOutputScrollUiTest {
  @TempDir Path temp;

  @Test
  void aCommandsOutputScrollsIntoViewWhenTheChatIsScrolledUp() throws Exception {
    StringBuilder longAnswer = new StringBuilder();
    for (int i = 1; i <= 60; i++) {
      longAnswer.append("line ").append(i).append("\\n\\n");
    }
    try (VirtualUi ui = new VirtualUi(temp, 80, 20, ApprovalMode.YOLO,
        "{'responses':[{'text':'" + longAnswer + "the end'}]}")) {
      ui.send("talk a lot");
      ui.waitFor(s -> s.contains("the end") && s.contains("ready · #1"), "the answer");
      ui.key(KeyType.PageUp);
      ui.key(KeyType.PageUp);
      ui.waitFor(s -> !s.contains("the end"), "the chat scrolled up");

      ui.send("/checkpoint");
      String shown = ui.waitFor(s -> s.contains("Checkpoints (live #1):") && s.contains("(start)"), "the tree at the bottom");
      assertThat(shown).doesNotContain("line 20\n");
    }
  }
}
