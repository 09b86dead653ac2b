package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a command printed, folded, expanded and whole. */
class ToolOutputUiTest {
  @TempDir Path temp;

  @Test
  void theFoldedLineCountsOnlyWhatTheCommandPrintedNotItsExitCode() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'run_shell','arguments':{'command':'echo 1'}}]},"
        + "{'whenLastUser':'one','text':'Ran one.'},"
        + "{'whenLastUser':'none','toolCalls':[{'name':'run_shell','arguments':{'command':'true'}}]},"
        + "{'whenLastUser':'none','text':'Ran none.'},"
        + "{'whenLastUser':'fails','toolCalls':[{'name':'run_shell','arguments':{'command':'exit 3'}}]},"
        + "{'whenLastUser':'fails','text':'Ran fails.'}]}")) {
      ui.send("one");
      String one = ui.waitFor(s -> s.contains("Ran one.") && s.contains("ready · #1"), "the first turn");
      assertThat(one).containsPattern("⎿ 1 *\n").doesNotContain("more line");
      ui.send("none");
      String none = ui.waitFor(s -> s.contains("Ran none.") && s.contains("ready · #2"), "the second turn");
      assertThat(none).containsPattern("⎿ \\(no output\\) *\n").doesNotContain("more line");
      ui.send("fails");
      String fails = ui.waitFor(s -> s.contains("Ran fails.") && s.contains("ready · #3"), "the third turn");
      assertThat(fails).contains("⎿ (no output) · exit code 3").doesNotContain("more line");
    }
  }

  @Test
  void expandedOutputPastItsLimitSaysHowMuchIsCutAndOutputShowsItWholeInAPanel() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'seq 1 1000'}}]},{'text':'Counted.'}]}")) {
      ui.send("count");
      String folded = ui.waitFor(s -> s.contains("Counted.") && s.contains("ready · #1"), "the turn");
      assertThat(folded).contains("⎿ 1 (+999 more lines, Ctrl+O)");

      ui.ctrl('o');
      String expanded = ui.waitFor("more lines not shown");
      assertThat(expanded).contains("… 600 more lines not shown here: /output 1 shows the whole output");

      ui.send("/output 1");
      String panel = ui.waitFor("Output of #1");
      assertThat(panel).contains("run_shell", "seq 1 1000");
      ui.ctrl('e'); // the panel's end
      String end = ui.waitFor("[exit code 0]");
      assertThat(end).containsPattern("\n  999 *\n  1000 *\n");
      ui.key(KeyType.Escape);
      ui.waitFor(s -> !s.contains("Output of #1"), "the panel to close");

      ui.send("/output 7");
      ui.waitFor("#7 made no tool call");
    }
  }

  @Test
  void aRunningCommandShowsItsLastLinesAsTheyComeAndCtrlOShowsAllOfIt() throws Exception {
    Path go = temp.resolve("go");
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'seq 1 12; while [ ! -e " + go
        + " ]; do sleep 0.05; done; echo finished'}}]},{'text':'Built.'}]}")) {
      ui.send("build");
      String running = ui.waitFor(s -> s.contains("    12"), "the command's output while it runs");
      assertThat(running).as("the last lines, not all").contains("    8", "    12").doesNotContainPattern("\n +7 *\n")
          .contains("● run_shell").doesNotContain("Built.");

      ui.ctrl('o');
      String all = ui.waitFor(s -> s.contains("    1 ") || s.contains("  ⎿ 1"), "all the output so far");
      assertThat(all).contains("    12").doesNotContain("Built.");
      ui.ctrl('o');

      Files.createFile(go);
      String done = ui.waitFor(s -> s.contains("Built.") && s.contains("ready · #1"), "the turn's end");
      assertThat(done).contains("✓ run_shell").doesNotContain("    12");
    }
  }

  @Test
  void theOutputPanelMovesByPagesWithPgDnAndPgUp() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'seq 1 1000'}}]},{'text':'Counted.'}]}")) {
      ui.send("count");
      ui.waitFor(s -> s.contains("Counted.") && s.contains("ready · #1"), "the turn");
      ui.send("/output 1");
      String top = ui.waitFor("Output of #1");
      assertThat(top).containsPattern("\n +1 *\n").doesNotContainPattern("\n +40 *\n");

      ui.key(KeyType.PageDown);
      String page = ui.waitFor(s -> !s.matches("(?s).*\n +1 *\n.*"), "a page down");
      assertThat(page).as("a page, not a line").doesNotContainPattern("\n +[1-9] *\n").containsPattern("\n +3\\d *\n");
      ui.key(KeyType.PageDown);
      ui.waitFor(s -> s.matches("(?s).*\n +5\\d *\n.*"), "another page");
      ui.key(KeyType.PageUp);
      ui.key(KeyType.PageUp);
      ui.waitFor(s -> s.matches("(?s).*\n +1 *\n.*"), "the top again");
    }
  }
}
