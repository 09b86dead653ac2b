package dev.waymark.tui.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NotifierTest {
  @Test
  void onlyAnUnfocusedTerminalIsNotifiedInItsOwnSequence() {
    List<String> sent = new ArrayList<>();
    Notifier osc9 = new Notifier(sent::add, Notifier.Kind.OSC9, false);
    assertThat(osc9.notify("Turn #1 done in tab 1.", false)).as("focused until the terminal says otherwise").isFalse();
    osc9.focused(false);
    assertThat(osc9.notify("Turn #1 done in tab 1.", false)).isTrue();
    osc9.focused(true);
    osc9.notify("not sent", false);
    assertThat(sent).containsExactly("\u001b]9;Waymark: Turn #1 done in tab 1.\u0007");
  }

  @Test
  void osc777HasATitleAndTheTextCannotEndTheSequenceOrSplitItsFields() {
    assertThat(Notifier.sequence(Notifier.Kind.OSC777, false, "a;b\u0007c\u001b]d"))
        .isEqualTo("\u001b]777;notify;Waymark;a b c ]d\u0007");
  }

  @Test
  void insideTmuxTheSequenceIsPassedThroughAndTheBellIsNotRungTwice() {
    assertThat(Notifier.sequence(Notifier.Kind.OSC9, true, "x"))
        .isEqualTo("\u001bPtmux;\u001b\u001b]9;Waymark: x\u0007\u001b\\");
    List<String> sent = new ArrayList<>();
    Notifier bell = new Notifier(sent::add, Notifier.Kind.BELL, false);
    bell.focused(false);
    assertThat(bell.notify("approval", true)).isFalse();
    assertThat(bell.notify("turn ended", false)).isTrue();
    assertThat(sent).containsExactly("\u0007");
  }

  @Test
  void theKindFollowsTheTerminal() {
    assertThat(Notifier.kindFor(Map.of("TERM_PROGRAM", "iTerm.app"))).isEqualTo(Notifier.Kind.OSC9);
    assertThat(Notifier.kindFor(Map.of("TERM", "xterm-kitty"))).isEqualTo(Notifier.Kind.OSC9);
    assertThat(Notifier.kindFor(Map.of("TERM", "foot"))).isEqualTo(Notifier.Kind.OSC777);
    assertThat(Notifier.kindFor(Map.of("TERM", "xterm-256color", "VTE_VERSION", "7600"))).isEqualTo(Notifier.Kind.OSC777);
    assertThat(Notifier.kindFor(Map.of("TERM", "xterm-256color"))).isEqualTo(Notifier.Kind.BELL);
  }
}
