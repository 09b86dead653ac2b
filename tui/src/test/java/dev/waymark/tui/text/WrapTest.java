package dev.waymark.tui.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WrapTest {
  private static List<String> texts(List<Line> rows) {
    return rows.stream().map(Line::text).toList();
  }

  @Test
  void breaksAtSpacesAndDropsTheSpaceAtTheBreak() {
    assertThat(texts(Wrap.wrap(Line.plain("the quick brown fox"), 10))).containsExactly("the quick", "brown fox");
  }

  @Test
  void hardBreaksAWordLongerThanTheRow() {
    assertThat(texts(Wrap.wrap(Line.plain("abcdefghij"), 4))).containsExactly("abcd", "efgh", "ij");
  }

  @Test
  void keepsStylesAcrossBreaks() {
    Line line = Line.of(Span.plain("plain "), new Span("bold words here", Style.PLAIN.bolded()));
    List<Line> rows = Wrap.wrap(line, 11);
    assertThat(texts(rows)).containsExactly("plain bold", "words here");
    assertThat(rows.get(1).spans()).allMatch(s -> s.style().bold());
  }

  @Test
  void continuationRowsStartWithTheHangingIndent() {
    assertThat(texts(Wrap.wrap(Line.plain("• one two three"), 9, Line.plain("  ")))).containsExactly("• one two", "  three");
  }

  @Test
  void aWideCharacterThatWouldStraddleTheEdgeMovesDown() {
    assertThat(texts(Wrap.wrap(Line.plain("abc漢字"), 4))).containsExactly("abc", "漢字");
  }

  @Test
  void anEmptyLineIsOneEmptyRowAndTinyWidthsNeverThrow() {
    assertThat(Wrap.wrap(Line.EMPTY, 10)).hasSize(1);
    assertThat(texts(Wrap.wrap(Line.plain("ab"), 0))).containsExactly("a", "b");
    assertThat(texts(Wrap.wrap(Line.plain("漢"), 1))).containsExactly("漢");
  }

  @Test
  void noRowIsEverWiderThanTheWidth() {
    Random random = new Random(7);
    String alphabet = "ab c漢😀👍🏽 \t-";
    for (int run = 0; run < 500; run++) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(60);
      for (int i = 0; i < length; i++) {
        int at = random.nextInt(alphabet.length());
        b.append(alphabet.charAt(at));
      }
      String text = b.toString();
      int width = 2 + random.nextInt(20);
      for (Line row : Wrap.wrap(Line.plain(text.replaceAll("[\\uD800-\\uDFFF]", "x")), width, Line.plain(" "))) {
        assertThat(row.width()).as("'%s' at %d", text, width).isLessThanOrEqualTo(width);
      }
    }
  }

  @Test
  void truncateEndsInAnEllipsis() {
    assertThat(Wrap.truncate(Line.plain("hello world"), 6).text()).isEqualTo("hello…");
    assertThat(Wrap.truncate(Line.plain("short"), 6).text()).isEqualTo("short");
    assertThat(Wrap.truncate(Line.plain("漢字漢字"), 4).text()).isEqualTo("漢…");
  }
}
