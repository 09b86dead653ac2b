package dev.waymark.tui;

import dev.waymark.core.agent.TabSession;
import java.util.List;

/**
 * Saving and loading sessions, which the application wires (the UI only decides when). Every
 * method may throw {@link dev.waymark.core.session.SessionException} with a message for the user.
 */
public interface SessionControl {
  /**
   * A tab as the UI shows it: its session, its label, what sits in its input, whether the user
   * closed it, and whether it is the one shown (a headless command without --tab takes that one).
   */
  record OpenTab(TabSession session, String title, String input, boolean closed, boolean active) {
    public OpenTab(TabSession session, String title, String input) {
      this(session, title, input, false, false);
    }

    public OpenTab(TabSession session, String title, String input, boolean closed) {
      this(session, title, input, closed, false);
    }
  }

  /** A tab brought back from a saved session, with what sat in its input, and whether it had been closed. */
  record LoadedTab(TabSession session, String input, boolean closed) {
    public LoadedTab(TabSession session, String input) {
      this(session, input, false);
    }
  }

  /** A loaded session's tabs, and what could not be brought back. */
  /** A session brought back; {@code activeTab} is the id of the tab shown when it was saved (null: the first). */
  record Loaded(String name, List<LoadedTab> tabs, List<String> notes, String activeTab) {
    public Loaded(String name, List<LoadedTab> tabs, List<String> notes) {
      this(name, tabs, notes, null);
    }
  }

  /** Writes the current session; a non-null {@code name} names it. Returns what to tell the user. */
  String save(List<OpenTab> tabs, String name);

  /** One line per saved session of this project, newest first. */
  List<String> list();

  /** Opens a saved session; the current one must have been saved first. */
  Loaded load(String idOrName);

  /** Deletes a saved session (not the open one) and its tags. Returns what to tell the user. */
  String delete(String idOrName);

  /** For a UI without saved sessions (tests): every call says so. */
  SessionControl NONE = new SessionControl() {
    @Override
    public String save(List<OpenTab> tabs, String name) {
      return "Sessions are not kept in this run.";
    }

    @Override
    public List<String> list() {
      return List.of("Sessions are not kept in this run.");
    }

    @Override
    public Loaded load(String idOrName) {
      throw new dev.waymark.core.session.SessionException("Sessions are not kept in this run.");
    }

    @Override
    public String delete(String idOrName) {
      return "Sessions are not kept in this run.";
    }
  };
}
