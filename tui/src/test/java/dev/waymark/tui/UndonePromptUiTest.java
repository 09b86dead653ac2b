package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Undoing a turn brings its own prompt back into the input, whatever was sent from the same checkpoint since. */
class UndonePromptUiTest {
  @TempDir Path temp;

  @Test
  void undoingATurnWhoseCheckpointWasBranchedFromSinceBringsBackItsOwnPrompt() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO,
        "{'responses':[{'text':'ok 1'},{'text':'ok 2'},{'text':'ok 3'}]}")) {
      ui.send("one");
      ui.waitFor(s -> s.contains("ok 1") && s.contains("ready · #1"), "#1");
      ui.send("two");
      ui.waitFor(s -> s.contains("ok 2") && s.contains("ready · #2"), "#2");
      ui.ctrl('b');
      ui.waitFor("Viewing checkpoint #1");
      ui.send("three");
      ui.waitFor(s -> s.contains("ok 3") && s.contains("ready · #3"), "#3, a branch from #1");
      ui.send("/checkpoint goto 2");
      ui.waitFor(s -> s.contains("Restored #2") && s.contains("ready · #2"), "back on #2");

      ui.send("/undo");
      String undone = ui.waitFor(s -> s.contains("ready · #1") && s.contains("undone turn"), "the undo of #2");
      assertThat(ui.input()).as(undone).isEqualTo("› two");
      assertThat(undone).contains("The prompt of the undone turn is back");
    }
  }
}
