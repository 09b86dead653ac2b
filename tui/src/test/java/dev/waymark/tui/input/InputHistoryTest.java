package dev.waymark.tui.input;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InputHistoryTest {
  @Test
  void upRecallsOlderEntriesAndDownBringsBackTheDraft() {
    InputHistory h = new InputHistory();
    h.add("one");
    h.add("two");
    h.add("two");
    assertThat(h.previous("draft")).contains("two");
    assertThat(h.previous("ignored")).contains("one");
    assertThat(h.previous("ignored")).isEmpty();
    assertThat(h.next()).contains("two");
    assertThat(h.next()).contains("draft");
    assertThat(h.next()).isEmpty();
  }

  @Test
  void keepsAtMostTheLimit() {
    InputHistory h = new InputHistory();
    for (int i = 0; i < InputHistory.LIMIT + 10; i++) {
      h.add("entry " + i);
    }
    String oldest = null;
    for (var e = h.previous(""); e.isPresent(); e = h.previous("")) {
      oldest = e.get();
    }
    assertThat(oldest).isEqualTo("entry 10");
  }
}
