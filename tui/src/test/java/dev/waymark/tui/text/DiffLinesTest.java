package dev.waymark.tui.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DiffLinesTest {
  static final String DIFF = "diff --waymark a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n";

  @Test
  void colourEachKindOfRow() {
    List<Line> rows = DiffLines.render(DIFF, 80);
    assertThat(rows).extracting(Line::text).containsExactly(
        "diff --waymark a/a.txt b/a.txt", "--- a/a.txt", "+++ b/a.txt", "@@ -1,2 +1,2 @@", " keep", "-old", "+new");
    assertThat(rows.get(0).spans().get(0).style().tone()).isEqualTo(Tone.ACCENT);
    assertThat(rows.get(3).spans().get(0).style().tone()).isEqualTo(Tone.MUTED);
    assertThat(rows.get(5).spans().get(0).style().tone()).isEqualTo(Tone.REMOVED);
    assertThat(rows.get(6).spans().get(0).style().tone()).isEqualTo(Tone.ADDED);
  }

  @Test
  void longRowsAreCutNotWrapped() {
    assertThat(DiffLines.render("+" + "x".repeat(50), 10)).extracting(Line::text).containsExactly("+xxxxxxxx…");
  }

  @Test
  void compactKeepsOnlyChangesAndSaysHowManyMore() {
    assertThat(DiffLines.compact(DIFF, 80, 10)).extracting(Line::text).containsExactly("@@ -1,2 +1,2 @@", "-old", "+new");
    assertThat(DiffLines.compact(DIFF, 80, 2)).extracting(Line::text).containsExactly("@@ -1,2 +1,2 @@", "… 2 more lines (Ctrl+O expands)");
  }
}
