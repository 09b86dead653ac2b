package dev.waymark.core.workspace;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The project's saved sessions in words: listing them, deleting one, and the tab a headless command takes. */
final class SessionListing {
  private static final DateTimeFormatter LIST_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  private final SessionStore files;
  private final ShadowStore store;

  SessionListing(SessionStore files, ShadowStore store) {
    this.files = files;
    this.store = store;
  }

  /** One line per saved session, newest first; the session {@code current} marked. */
  List<String> list(String current) {
    List<String> lines = new ArrayList<>();
    for (SessionStore.Listing l : files.list()) {
      lines.add(describe(l, current));
    }
    if (lines.isEmpty()) {
      lines.add("No saved sessions in " + files.directory() + ".");
    }
    return lines;
  }

  /** A line of a session list. */
  static String describe(SessionStore.Listing l, String current) {
    String when = l.updated() == null ? "?" : LIST_TIME.format(l.updated());
    if (l.problem().isPresent()) {
      return "  " + l.id() + "  " + when + "  cannot be loaded: " + l.problem().get();
    }
    return (l.id().equals(current) ? "▸ " : "  ") + l.id() + "  " + when + "  " + l.tabs() + (l.tabs() == 1 ? " tab, " : " tabs, ")
        + l.checkpoints() + (l.checkpoints() == 1 ? " checkpoint" : " checkpoints") + (l.name() == null ? "" : "  \"" + l.name() + "\"");
  }

  /**
   * Deletes a saved session and the tags only it names; returns the deleted session. Never the
   * open one, {@code currentId}, which {@code currentLabel} names to the user.
   */
  SessionFile deleteSession(String idOrName, String currentId, String currentLabel) {
    SessionFile file = files.load(idOrName);
    if (file.id().equals(currentId)) {
      throw new SessionException(ErrorKind.BUSY, "Session " + currentLabel + " is the one open; load another first.");
    }
    return files.delete(file.id(), store);
  }

  /** What to tell the user of a deleted session. */
  static String deleted(SessionFile file) {
    return "Deleted session " + file.id() + " and the tags of its " + Counted.of(file.tabs().size(), "tab") + "; "
        + "the store reclaims their space at its next garbage collection.";
  }

  /**
   * The tab a headless command takes without --tab: the session's active tab if it is open, else
   * its first open tab, else (every tab closed) its first tab; empty for a session without tabs.
   */
  static Optional<String> defaultTab(SessionFile file) {
    List<SessionFile.Tab> open = file.tabs().stream().filter(t -> !t.isClosed()).toList();
    return open.stream().filter(t -> t.tabId().equals(file.activeTab())).findFirst()
        .or(() -> open.stream().findFirst())
        .or(() -> file.tabs().stream().findFirst())
        .map(SessionFile.Tab::tabId);
  }
}
