package dev.waymark.tui.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MarkdownTest {
  private static List<String> texts(String md, int width) {
    return Markdown.render(md, width).stream().map(Line::text).toList();
  }

  @Test
  void headingsParagraphsAndEmphasis() {
    List<Line> rows = Markdown.render("# Title\n\nSome *soft* and **strong** `code`.", 40);
    assertThat(rows.stream().map(Line::text)).containsExactly("Title", "", "Some soft and strong code.");
    assertThat(rows.get(0).spans()).allMatch(s -> s.style().bold() && s.style().tone() == Tone.HEADING);
    Line body = rows.get(2);
    assertThat(body.spans()).anyMatch(s -> s.text().equals("soft") && s.style().italic());
    assertThat(body.spans()).anyMatch(s -> s.text().equals("strong") && s.style().bold());
    assertThat(body.spans()).anyMatch(s -> s.text().equals("code") && s.style().tone() == Tone.CODE);
  }

  @Test
  void listsHangTheirContinuationRows() {
    assertThat(texts("- one two three four\n- five\n\n1. first\n2. second", 12))
        .containsExactly("• one two", "  three four", "• five", "", "1. first", "2. second");
  }

  @Test
  void codeBlocksAreIndentedAndNeverReflowed() {
    assertThat(texts("```java\nint a = 1;   int b = 2;\n```", 40)).containsExactly("  int a = 1;   int b = 2;");
    assertThat(texts("```\nabcdefghij\n```", 6)).containsExactly("  abcd", "  efgh", "  ij");
  }

  @Test
  void anOpenFenceWhileStreamingIsStillCode() {
    List<Line> rows = Markdown.render("Here:\n\n```\nstill coming", 40);
    assertThat(rows.get(rows.size() - 1).text()).isEqualTo("  still coming");
    assertThat(rows.get(rows.size() - 1).spans().get(1).style().tone()).isEqualTo(Tone.CODE);
  }

  @Test
  void quotesRulesAndLinks() {
    assertThat(texts("> quoted", 20)).containsExactly("│ quoted");
    assertThat(texts("---", 5)).containsExactly("─────");
    assertThat(texts("[docs](https://x.dev)", 40)).containsExactly("docs (https://x.dev)");
    assertThat(texts("<https://x.dev>", 40)).containsExactly("https://x.dev");
  }

  @Test
  void anyTextRendersWithinTheWidthWithoutThrowing() {
    Random random = new Random(11);
    String alphabet = "#*_`-> []()!\n\t1.abc漢😀|~\\";
    for (int run = 0; run < 500; run++) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(120);
      for (int i = 0; i < length; i++) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String md = b.toString().replaceAll("[\\uD800-\\uDFFF]", "x");
      int width = 3 + random.nextInt(30);
      for (Line row : Markdown.render(md, width)) {
        assertThat(row.width()).as("%s at %d", md, width).isLessThanOrEqualTo(width);
      }
    }
  }
}
