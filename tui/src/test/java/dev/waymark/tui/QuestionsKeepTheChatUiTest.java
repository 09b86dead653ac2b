package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Esc while viewing, and a [y/N] question, leave what the user was reading alone (#39 item 12). */
class QuestionsKeepTheChatUiTest {
  @TempDir Path temp;

  @Test
  void escWhileViewingDuringARunningTurnEndsTheViewingAndTheTurnGoesOn() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'one','text':'First.'},{'whenLastUser':'slow','delayMs':1500,'text':'Slow done.'}]}")) {
      ui.send("one");
      ui.waitFor("ready · #1");
      ui.send("slow");
      ui.waitFor("working");
      ui.ctrl('b');
      ui.waitFor("Viewing checkpoint #1");
      ui.key(KeyType.Escape);
      String live = ui.waitFor(s -> !s.contains("Viewing checkpoint"), "the viewing to end");
      assertThat(live).doesNotContain("Interrupt");
      String done = ui.waitFor("Slow done.");
      assertThat(done).as("the turn was not cancelled").doesNotContain("Interrupted");
    }
  }

  @Test
  void aYesNoQuestionLeavesTheChatOnScreen() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'An answer worth reading.'}]}")) {
      ui.send("one");
      ui.waitFor("ready · #1");
      ui.ctrl('w');
      String asked = ui.waitFor("Close tab");
      assertThat(asked).contains("[y/N]", "An answer worth reading.", "› one");
    }
  }
}
