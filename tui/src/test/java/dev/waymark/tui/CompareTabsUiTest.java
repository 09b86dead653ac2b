package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /diff A B} across tabs names each tab as the bar shows it, by its place and title, never by its id. */
class CompareTabsUiTest {
  @TempDir Path temp;

  @Test
  void theDiffOfTwoTabsIsTitledWithTheirPlacesAndTitles() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 140, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'write one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one'}}]},"
        + "{'whenLastUser':'write one','text':'Wrote one.'},"
        + "{'whenLastUser':'write two','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'two'}}]},"
        + "{'whenLastUser':'write two','text':'Wrote two.'}]}")) {
      ui.send("write one");
      ui.waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the first tab's turn");
      ui.ctrl('t');
      ui.send("write two");
      ui.waitFor(s -> s.contains("Wrote two.") && s.contains("ready · #1"), "the second tab's turn");
      ui.send("/diff 1:live 2:live");
      String shown = ui.waitFor("Diff ");
      assertThat(shown).contains("Diff tab 1 (write one) #1 → #1").doesNotContainPattern("Diff t[0-9a-f]{6,}");
    }
  }
}
