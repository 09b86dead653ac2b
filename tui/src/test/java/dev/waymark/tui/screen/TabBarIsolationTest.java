package dev.waymark.tui.screen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.tui.text.Line;
import java.util.List;
import org.junit.jupiter.api.Test;

class TabBarIsolationTest {
  private static String text(Line line) {
    StringBuilder out = new StringBuilder();
    line.spans().forEach(span -> out.append(span.text()));
    return out.toString();
  }

  @Test
  void anIsolatedTabIsMarkedWithTheFilesItsViewChanges() {
    String bar = text(TabBar.render(List.of(new TabBar.Label("plain", true, false, false, false, ""),
        new TabBar.Label("isolated", false, false, false, false, "◇3")), 100, "*"));
    assertThat(bar).contains(" 1 plain").contains(" 2◇3 isolated");
  }
}
