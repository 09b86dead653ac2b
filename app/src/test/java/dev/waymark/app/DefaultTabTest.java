package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.session.SessionFile;
import dev.waymark.core.workspace.Workspace;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tab `waymark checkpoints …` and `exec --session` take without --tab: never one the user closed. */
class DefaultTabTest {
  private static SessionFile.Tab tab(String id, boolean closed) {
    return new SessionFile.Tab(id, id, "p", "m", "", 0, 0, List.of(), List.of(), null, closed);
  }

  private static SessionFile session(String activeTab, SessionFile.Tab... tabs) {
    return new SessionFile(1, "s", null, "/p", null, null, activeTab, Arrays.asList(tabs));
  }

  @Test
  void theActiveTabWhenItIsOpen() {
    assertThat(Workspace.defaultTab(session("b", tab("a", false), tab("b", false)))).contains("b");
  }

  @Test
  void aClosedActiveTabGivesWayToTheFirstOpenOne() {
    assertThat(Workspace.defaultTab(session("a", tab("a", true), tab("b", false), tab("c", false)))).contains("b");
  }

  @Test
  void aSessionWithoutActiveTabTakesItsFirstOpenTabNotAClosedOneBeforeIt() {
    assertThat(Workspace.defaultTab(session(null, tab("a", true), tab("b", false)))).contains("b");
    assertThat(Workspace.defaultTab(session("gone", tab("a", true), tab("b", false)))).contains("b");
  }

  @Test
  void everyTabClosedTakesTheFirstAndNoTabTakesNone() {
    assertThat(Workspace.defaultTab(session("b", tab("a", true), tab("b", true)))).contains("a");
    assertThat(Workspace.defaultTab(session(null))).isEmpty();
  }
}
