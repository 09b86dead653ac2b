package dev.waymark.tui.input;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InputLayoutTest {
  @Test
  void wrapsByColumnsAndPlacesTheCaret() {
    InputLayout.Layout l = InputLayout.layout("abcdefg", 7, 4, 5);
    assertThat(l.rows()).containsExactly("abcd", "efg");
    assertThat(l.caretRow()).isEqualTo(1);
    assertThat(l.caretColumn()).isEqualTo(3);
  }

  @Test
  void aCaretAfterAFullRowSitsAtTheStartOfTheNext() {
    InputLayout.Layout l = InputLayout.layout("abcd", 4, 4, 5);
    assertThat(l.rows()).containsExactly("abcd", "");
    assertThat(l.caretRow()).isEqualTo(1);
    assertThat(l.caretColumn()).isZero();
  }

  @Test
  void wideCharactersNeverStraddleTheEdge() {
    InputLayout.Layout l = InputLayout.layout("abc漢", 4, 4, 5);
    assertThat(l.rows()).containsExactly("abc", "漢");
    assertThat(l.caretColumn()).isEqualTo(2);
  }

  @Test
  void newlinesBreakRowsAndTheVisibleWindowFollowsTheCaret() {
    InputLayout.Layout l = InputLayout.layout("1\n2\n3\n4", 7, 10, 2);
    assertThat(l.rows()).containsExactly("1", "2", "3", "4");
    assertThat(l.firstRow()).isEqualTo(2);
    InputLayout.Layout top = InputLayout.layout("1\n2\n3\n4", 0, 10, 2);
    assertThat(top.firstRow()).isZero();
  }
}
