package dev.waymark.tui.tab;

import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.input.PastedTexts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The tabs of the session: the open ones in the tab bar, which of them is shown, and the ones the
 * user closed, kept (their tags too) to be reopened.
 */
public final class Tabs {
  private final List<TabController> open = new ArrayList<>();
  private final List<TabController> closed = new ArrayList<>();
  private final PastedTexts pastes = new PastedTexts();

  /** The large pastes folded in the inputs of every tab. */
  public PastedTexts pastes() {
    return pastes;
  }
  private int active;

  public boolean isEmpty() {
    return open.isEmpty();
  }

  public int size() {
    return open.size();
  }

  public List<TabController> open() {
    return List.copyOf(open);
  }

  public List<TabController> closed() {
    return List.copyOf(closed);
  }

  public TabController current() {
    return open.get(active);
  }

  public int activeIndex() {
    return active;
  }

  public TabController get(int index) {
    return open.get(index);
  }

  /** 1-based, as the tab bar numbers it. */
  public int number(TabController tab) {
    return open.indexOf(tab) + 1;
  }

  public boolean isOpen(TabController tab) {
    return open.contains(tab);
  }

  public boolean isClosed(TabController tab) {
    return closed.contains(tab);
  }

  /** Adds a tab as the session had it; {@code shown} makes it the active one. */
  public void add(TabController tab, boolean wasClosed, boolean shown) {
    (wasClosed ? closed : open).add(tab);
    if (shown && !wasClosed) {
      active = open.size() - 1;
    }
  }

  /**
   * Adds a subagent's tab after its parent's tab and the parent's other subagents, without showing it;
   * the last of the open ones when the parent is not open.
   */
  public void addBeside(TabController tab, String parentTab) {
    int at = -1;
    for (int i = 0; i < open.size(); i++) {
      String id = open.get(i).tab().tabId();
      if (id.equals(parentTab) || at >= 0 && open.get(i).tab().subagentOf().equals(Optional.of(parentTab))) {
        at = i + 1;
      }
    }
    at = at < 0 ? open.size() : at;
    open.add(at, tab);
    if (at <= active && open.size() > 1) {
      active++; // the tab shown stays shown
    }
  }

  public void activate(int index) {
    if (index >= 0 && index < open.size()) {
      active = index;
      current().state().seen();
    }
  }

  public void next(int delta) {
    activate(Math.floorMod(active + delta, open.size()));
  }

  /** Moves an open tab to the closed ones; the one beside it is shown. */
  public void close(TabController tab) {
    int index = open.indexOf(tab);
    open.remove(tab);
    closed.add(tab);
    active = Math.max(0, Math.min(index, open.size() - 1));
  }

  /** Reopens the {@code index}-th closed tab (0-based) and shows it. */
  public TabController reopen(int index) {
    TabController back = closed.remove(index);
    open.add(back);
    active = open.size() - 1;
    return back;
  }

  /** Forgets every tab (a loaded session replaces them) and returns them, open then closed. */
  public List<TabController> clear() {
    List<TabController> all = new ArrayList<>(open);
    all.addAll(closed);
    open.clear();
    closed.clear();
    active = 0;
    return all;
  }

  public void showFirst() {
    active = 0;
  }

  /** True while a turn runs in an open tab: the spinner turns. */
  public boolean anyRunning() {
    return open.stream().anyMatch(t -> t.state().running());
  }

  /** Tells the workspace what sits in each tab's input and which tab is shown, for its next save. */
  public void syncDrafts(Workspace workspace) {
    for (TabController t : open) {
      t.tab().input(pastes.expand(t.editor().text())); // a draft brought back later has no placeholders to expand
    }
    for (TabController t : closed) {
      t.tab().input(pastes.expand(t.editor().text()));
    }
    if (!open.isEmpty()) {
      workspace.show(current().tab());
    }
  }
}
