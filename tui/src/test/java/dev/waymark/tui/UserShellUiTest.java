package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code !command} typed in the input (#39 item 7). */
class UserShellUiTest {
  @TempDir Path temp;

  @Test
  void aBangCommandRunsUnaskedShowsItsOutputAndMakesACheckpointTheModelHearsOfNext() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.ASK,
        "{'responses':[{'expectLastUser':'and now?','text':'You listed it.'}]}")) {
      ui.send("!echo made > a.txt && echo the-output");
      String ran = ui.waitFor(s -> s.contains("ready · #1"), "the command's checkpoint");
      assertThat(ran).contains("!echo made > a.txt && echo the-output", "the-output").doesNotContain("Allow run_shell");
      assertThat(Files.readString(ui.project.resolve("a.txt"))).isEqualTo("made\n");
      ui.send("and now?");
      ui.waitFor(s -> s.contains("You listed it.") && s.contains("ready · #2"), "the next prompt's turn");
    }
  }
}
