package dev.waymark.tui.screen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A searchable picker: every word typed must be in an entry's text, and typing on looks only at what is left. */
class PickerSearchTest {
  private static Picker thousand(AtomicInteger picked) {
    List<Picker.Choice> choices = new ArrayList<>();
    List<String> searched = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      choices.add(new Picker.Choice("prompt number " + i, "", i));
      searched.add("Prompt number " + i + (i % 2 == 0 ? " even" : " odd"));
    }
    return Picker.searchable("Resume a session", choices, searched, c -> picked.set(c.value()));
  }

  private static void type(Picker picker, String text) {
    text.codePoints().forEach(cp -> picker.type(new String(Character.toChars(cp))));
  }

  @Test
  void typedWordsFilterInAnyOrderAndCaseAndEnterPicksWhatIsLeft() {
    AtomicInteger picked = new AtomicInteger(-1);
    Picker picker = thousand(picked);

    type(picker, "ODD 99");

    assertThat(picker.matching()).as("99, 199, …, 999, and 991 to 997").isEqualTo(14);
    assertThat(picker.rows(80, 3)).hasSize(3);
    picker.move(1);
    picker.choose();
    assertThat(picked).hasValue(199);

    picker.deleteBack();
    picker.deleteBack();
    picker.deleteBack();
    assertThat(picker.query()).isEqualTo("ODD");
    assertThat(picker.matching()).isEqualTo(500);
    type(picker, " nothing");
    assertThat(picker.matching()).isZero();
    assertThat(picker.chosen()).isNull();
    assertThat(picker.rows(80, 5).get(0).text()).contains("Nothing matches \"ODD nothing\"");
  }

  @Test
  void typingOnLooksOnlyAtTheEntriesStillShownSoALongQueryCostsLittleMoreThanOneLetter() {
    Picker picker = thousand(new AtomicInteger());

    long looked = 0;
    for (char c : "427 odd".toCharArray()) {
      looked += picker.matching(); // each letter looks only at what the letters before it kept
      picker.type(String.valueOf(c));
    }

    assertThat(picker.matching()).isEqualTo(1);
    assertThat(picker.examined()).isEqualTo(looked).isLessThan(1000 + 300);
    long before = picker.examined();
    picker.deleteBack();
    assertThat(picker.examined() - before).as("taking a letter back starts again from all").isEqualTo(1000);
  }
}
