package dev.waymark.tui.screen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.tui.text.CellWidth;
import dev.waymark.tui.text.Line;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A crowded bar shares its width so that every tab keeps its number, its mark and some of its title. */
class TabBarCrowdedTest {
  private static String text(Line line) {
    StringBuilder out = new StringBuilder();
    line.spans().forEach(span -> out.append(span.text()));
    return out.toString();
  }

  @Test
  void everyTabOfACrowdedBarKeepsItsMarkAndTitleWithinTheWidth() {
    for (int width : new int[] {80, 100, 120, 160}) {
      List<TabBar.Label> tabs = new ArrayList<>();
      tabs.add(new TabBar.Label("refactor the payment module", true, false, false, false, ""));
      for (int i = 2; i <= 6; i++) {
        tabs.add(new TabBar.Label("subagent task number " + i, false, false, false, false, i % 2 == 0 ? "↳1" : "◇" + i));
      }
      String bar = text(TabBar.render(tabs, width, "*"));
      assertThat(CellWidth.of(bar)).as("at %d columns", width).isLessThanOrEqualTo(width);
      for (int i = 2; i <= 6; i++) {
        String mark = i % 2 == 0 ? "↳1" : "◇" + i;
        assertThat(bar).as("at %d columns: %s", width, bar).containsPattern(" " + i + mark + " su");
      }
    }
  }

  @Test
  void roomAShortTitleLeavesGoesToTheTabsAfterIt() {
    String bar = text(TabBar.render(List.of(new TabBar.Label("a", true, false, false, false, ""),
        new TabBar.Label("b", false, false, false, false, ""),
        new TabBar.Label("twelve chars", false, false, false, false, "")), 44, "*"));
    assertThat(bar).contains(" 3 twelve chars ");
  }
}
