package dev.waymark.tui.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CellWidthTest {
  @Test
  void asciiIsOneColumnEach() {
    assertThat(CellWidth.of("hello")).isEqualTo(5);
  }

  @Test
  void cjkIsTwoColumnsEach() {
    assertThat(CellWidth.of("漢字")).isEqualTo(4);
  }

  @Test
  void emojiAreOneClusterOfTwoColumns() {
    assertThat(CellWidth.of("😀")).isEqualTo(2);
    assertThat(CellWidth.clusters("👍🏽")).hasSize(1);
    assertThat(CellWidth.of("👍🏽")).isEqualTo(2);
    assertThat(CellWidth.clusters("👨‍👩‍👧")).hasSize(1);
    assertThat(CellWidth.of("👨‍👩‍👧")).isEqualTo(2);
    assertThat(CellWidth.clusters("🇯🇵")).hasSize(1);
    assertThat(CellWidth.of("🇯🇵")).isEqualTo(2);
    assertThat(CellWidth.of("✅")).isEqualTo(2);
    assertThat(CellWidth.of("❤️")).as("a text symbol made emoji by VS16").isEqualTo(2);
  }

  @Test
  void combiningMarksJoinTheirBase() {
    assertThat(CellWidth.clusters("e\u0301x")).containsExactly("e\u0301", "x");
    assertThat(CellWidth.of("e\u0301")).isEqualTo(1);
  }

  @Test
  void controlCharactersTakeNoColumn() {
    assertThat(CellWidth.of("\u0007")).isZero();
    assertThat(CellWidth.of("a\u200Bb")).as("zero width space").isEqualTo(2);
  }

  @Test
  void truncateNeverSplitsAWideCharacterOrACluster() {
    assertThat(CellWidth.truncate("ab漢字", 3)).isEqualTo("ab");
    assertThat(CellWidth.truncate("ab漢字", 4)).isEqualTo("ab漢");
    assertThat(CellWidth.truncate("👍🏽x", 1)).isEmpty();
    assertThat(CellWidth.truncate("👍🏽x", 2)).isEqualTo("👍🏽");
  }
}
