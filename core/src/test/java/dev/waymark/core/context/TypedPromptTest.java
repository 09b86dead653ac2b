package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TypedPromptTest {
  @Test
  void aCommandIsSentWithItsLabelAndShownAsTypedOnOneLine() {
    String sent = TypedPrompt.sent("Review a[0].java for bugs.", "/review a[0].java\n  now");
    assertThat(sent).isEqualTo("[waymark: /review a[0].java   now]\nReview a[0].java for bugs.");
    assertThat(TypedPrompt.shown(sent)).isEqualTo("/review a[0].java   now");
    assertThat(TypedPrompt.isCommand(TypedPrompt.label(sent).orElseThrow())).isTrue();
  }

  @Test
  void aPromptTypedAsItIsSentHasNoLabelAndShowsWithoutWhatItsMentionsAttached() {
    assertThat(TypedPrompt.sent("fix it", null)).isEqualTo("fix it");
    assertThat(TypedPrompt.sent("fix it", " fix it ")).isEqualTo("fix it");
    assertThat(TypedPrompt.shown("look at @a.txt" + Mentions.ATTACHED + "\n--- a.txt\nhi")).isEqualTo("look at @a.txt");
    assertThat(TypedPrompt.label("[waymark: no end")).isEmpty();
    assertThat(TypedPrompt.isCommand("restore files of #3")).isFalse();
  }
}
