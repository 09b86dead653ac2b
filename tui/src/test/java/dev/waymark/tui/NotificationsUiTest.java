package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.run.Notifier;
import dev.waymark.tui.terminal.UiInput;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A turn's end and a waiting approval are told while the terminal is unfocused, not while it is (#39 item 10). */
class NotificationsUiTest {
  @TempDir Path temp;

  @Test
  void aTurnEndingAndAnApprovalWaitingAreToldOnlyWhileTheTerminalIsUnfocused() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.ASK, "{'responses':[{'whenLastUser':'one','text':'First.'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'x'}}]},"
        + "{'whenLastUser':'three','text':'Third.'}]}")) {
      List<String> sent = new CopyOnWriteArrayList<>();
      ui.ui.notifications(new Notifier(sent::add, Notifier.Kind.OSC9, false));
      ui.send("one");
      ui.waitFor(s -> s.contains("First.") && s.contains("ready · #1"), "the first turn");
      assertThat(sent).as("the terminal is focused").isEmpty();

      ui.ui.post(new UiInput.Focus(false));
      ui.send("two");
      ui.waitFor(s -> !sent.isEmpty(), "the approval's notification");
      assertThat(sent).containsExactly("\u001b]9;Waymark: write_file waits for your approval in tab 1.\u0007");
      ui.key(KeyType.Escape); // the turn stops there, and ends
      ui.waitFor(s -> sent.size() == 2, "the turn's end told");
      assertThat(sent.get(1)).isEqualTo("\u001b]9;Waymark: Turn #2 cancelled in tab 1.\u0007");

      ui.ui.post(new UiInput.Focus(true));
      ui.send("three");
      ui.waitFor(s -> s.contains("Third.") && s.contains("ready · #3"), "the third turn");
      assertThat(sent).as("focused again").hasSize(2);
    }
  }
}
