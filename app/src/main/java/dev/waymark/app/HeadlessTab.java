package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.workspace.Workspace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * What a command acting on one saved tab from the command line opens first ({@code checkpoints},
 * its {@code bisect} and {@code export}, {@code shell}): the project's store, a headless workspace
 * over it, the session asked for (else the latest) and the tab asked for (else the session's
 * default), found in it. Closing it closes the workspace, then the store.
 */
final class HeadlessTab implements AutoCloseable {
  final ShadowStore store;
  final Workspace workspace;
  final SessionFile file;
  /** The tab asked for, or the session's default. */
  final String tabId;

  private HeadlessTab(ShadowStore store, Workspace workspace, SessionFile file, String tabId) {
    this.store = store;
    this.workspace = workspace;
    this.file = file;
    this.tabId = tabId;
  }

  /**
   * Opens {@code directory}'s store and session {@code sessionId} (null: the latest) with tab
   * {@code tabId} (null: its default); a {@link SessionException} when there is no such session or
   * tab, saying which there are.
   */
  static HeadlessTab open(Path directory, WaymarkHome home, String sessionId, String tabId) {
    ShadowStore store = ShadowStore.open(directory.toAbsolutePath(), home, RetentionPolicy.DEFAULT);
    Workspace workspace = null;
    try {
      workspace = Workspaces.headless(store);
      SessionFile file = sessionId != null ? workspace.files().load(sessionId) : workspace.files().latest()
          .orElseThrow(() -> new SessionException(ErrorKind.NOT_FOUND, "This project has no saved session yet: `waymark` or "
              + "`waymark exec` makes one."));
      String wanted = tabId != null ? tabId : Workspace.defaultTab(file).orElse(null);
      if (file.tabs().stream().noneMatch(t -> t.tabId().equals(wanted))) {
        throw noSuchTab(file, tabId);
      }
      return new HeadlessTab(store, workspace, file, wanted);
    } catch (RuntimeException e) {
      if (workspace != null) {
        workspace.close();
      }
      store.close();
      throw e;
    }
  }

  /** The same session with tab {@code id} instead; a {@link SessionException} when it has none, saying which it has. */
  HeadlessTab withTab(String id) {
    if (file.tabs().stream().noneMatch(t -> t.tabId().equals(id))) {
      throw noSuchTab(file, id);
    }
    return new HeadlessTab(store, workspace, file, id);
  }

  private static SessionException noSuchTab(SessionFile file, String tabId) {
    return new SessionException(ErrorKind.NOT_FOUND, "Session " + (file.name() == null ? file.id()
        : file.name() + " (" + file.id() + ")") + " has no tab " + tabId + " (it has "
        + String.join(", ", file.tabs().stream().map(SessionFile.Tab::tabId).toList()) + ").");
  }

  /** Opens the tab, and the others {@code alsoOpen} names, read-only when {@code looking}; their notes go to {@code err}. */
  Workspace.Opened open(boolean looking, Predicate<String> alsoOpen, PrintWriter err) {
    Workspace.Opened opened = workspace.open(file, looking, id -> id.equals(tabId) || alsoOpen.test(id));
    opened.notes().forEach(note -> err.println("waymark: " + note));
    return opened;
  }

  /** Opens the tab alone, read-only when {@code looking}; its notes go to {@code err}. */
  TabSession openTab(boolean looking, PrintWriter err) {
    return tab(open(looking, id -> false, err));
  }

  /**
   * The options that make a command the user is told to run act on this same tab: its session and tab, and the project
   * when it was given as {@code directory} (empty: the current one, where the user runs it from).
   */
  String sameTab(Path directory) {
    String project = directory.toString().isEmpty() ? ""
        : "-C " + ShellWords.quoted(directory.toAbsolutePath().normalize().toString()) + " ";
    return project + "--session " + ShellWords.quoted(file.id()) + " --tab " + ShellWords.quoted(tabId);
  }

  /** The tab asked for, among those {@code opened}. */
  TabSession tab(Workspace.Opened opened) {
    return opened.tabs().stream().filter(t -> t.tabId().equals(tabId)).findFirst().orElseThrow().session();
  }

  @Override
  public void close() {
    workspace.close();
    store.close();
  }
}
