package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /diff} in an isolated tab is its view against the project: what a land would change. */
class IsolatedDiffUiTest {
  @TempDir Path temp;

  @Test
  void aBareDiffInAnIsolatedTabShowsWhatALandWouldChangeAndItsStat() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 110, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'tab\\ntwo\\n'}}]},"
        + "{'text':'Done.'}]}")) {
      ui.workspace.isolateWith(Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")))
          .bwrap());
      ui.send("/tab isolated");
      ui.waitFor("Isolated tab: it works");
      ui.send("make b");
      ui.waitFor(s -> s.contains("Done.") && s.contains("ready · #1"), "the isolated turn");
      assertThat(ui.project.resolve("b.txt")).as("the project lacks the tab's change").doesNotExist();

      ui.send("/diff");
      String diff = ui.waitFor("Diff: what a land would change");
      assertThat(diff).contains("b.txt", "+tab").doesNotContain("as they were at");
      ui.key(KeyType.Escape);
      ui.waitFor(s -> !s.contains("Diff: what a land would change"), "the diff closed");

      ui.send("/diff --stat");
      String stat = ui.waitFor("What a land would change in the project:");
      assertThat(stat).contains(" b.txt | 2 ++", "1 file changed, 2 insertions(+), 0 deletions(-)");
    }
  }
}
