package dev.waymark.tui.screen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.core.protocol.ComparisonView.FileComparison;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The diff view of two checkpoints: walked hunk by hunk and file by file, a hunk or file taken on a letter. */
class ComparisonPanelTest {
  private static FileComparison file(String path, int hunks) {
    List<String> all = new ArrayList<>();
    for (int h = 0; h < hunks; h++) {
      all.add("@@ -" + (h * 10 + 1) + " +" + (h * 10 + 1) + " @@\n-old " + h + "\n+new " + h + "\n");
    }
    return new FileComparison(path, ComparisonView.Change.MODIFIED, hunks, hunks, hunks == 0,
        "diff --waymark a/" + path + " b/" + path + "\n" + (hunks == 0 ? "Binary files a/" + path + " and b/" + path
            + " differ\n" : "--- a/" + path + "\n+++ b/" + path + "\n"), all);
  }

  private final ComparisonView view = new ComparisonView(CheckpointRef.of(1), CheckpointRef.of(3),
      List.of(file("a.txt", 2), file("b.bin", 0), file("c.txt", 1)));
  private final List<ComparisonPanel.Take> taken = new ArrayList<>();
  private final ComparisonPanel panel = new ComparisonPanel(view, taken::add);
  private final Overlay overlay = panel.overlay();

  private String at() {
    return panel.file() + ":" + panel.hunk();
  }

  @Test
  void nAndPStepThroughEveryHunkAndCapitalsThroughFiles() {
    overlay.rows(60);
    assertThat(overlay.title()).startsWith("Diff #1 → #3 · 3 files +3 −3");
    assertThat(at()).isEqualTo("0:0");
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      assertThat(overlay.typed("n", 5)).isTrue();
      seen.add(at());
    }
    assertThat(seen).containsExactly("0:1", "1:-1", "2:0", "2:0", "2:0");
    overlay.typed("P", 5);
    assertThat(at()).isEqualTo("1:-1");
    overlay.typed("P", 5);
    assertThat(at()).isEqualTo("0:0");
    overlay.typed("N", 5);
    overlay.typed("N", 5);
    assertThat(at()).isEqualTo("2:0");
    assertThat(overlay.top()).as("scrolled to the hunk").isGreaterThan(0);
    overlay.typed("p", 5);
    assertThat(at()).isEqualTo("1:-1");
    assertThat(overlay.typed("x", 5)).as("a letter the view has no use for").isFalse();
  }

  @Test
  void theSelectedHunkIsMarkedAndTakenForEitherSide() {
    overlay.typed("n", 5);
    List<String> rows = overlay.rows(60).stream().map(l -> l.text()).toList();
    assertThat(rows).filteredOn(r -> r.startsWith("▌ ")).containsExactly("▌ @@ -11 +11 @@", "▌ -old 1", "▌ +new 1");
    overlay.typed("a", 5);
    overlay.typed("B", 5);
    overlay.typed("n", 5); // the binary file: no hunk to take, only the file
    overlay.typed("b", 5);
    overlay.typed("A", 5);
    assertThat(taken).containsExactly(new ComparisonPanel.Take("a.txt", 1, false), new ComparisonPanel.Take("a.txt", -1, true),
        new ComparisonPanel.Take("b.bin", -1, false));
  }
}
