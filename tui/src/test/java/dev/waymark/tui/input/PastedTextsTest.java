package dev.waymark.tui.input;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PastedTextsTest {
  @Test
  void aLongPasteIsFoldedIntoANumberedPlaceholderAndExpandedWhereverItStands() {
    PastedTexts pastes = new PastedTexts();
    String log = "x\n".repeat(119) + "last";
    String folded = pastes.fold(log);
    assertThat(folded).isEqualTo("[Pasted text #1 +120 lines]");
    String oneLine = "y".repeat(2500);
    assertThat(pastes.fold(oneLine)).isEqualTo("[Pasted text #2 2,500 characters]");
    assertThat(pastes.expand("Why does this fail?\n" + folded + "\nand " + "[Pasted text #2 2,500 characters]"))
        .isEqualTo("Why does this fail?\n" + log + "\nand " + oneLine);
  }

  @Test
  void aShortPasteGoesInAsItIsAndAPlaceholderTypedByHandIsLeftAlone() {
    PastedTexts pastes = new PastedTexts();
    assertThat(pastes.fold("two\nlines")).isEqualTo("two\nlines");
    assertThat(pastes.expand("[Pasted text #1 +120 lines]")).isEqualTo("[Pasted text #1 +120 lines]");
  }
}
