package dev.waymark.core.share;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.ProjectPaths;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * A bundle is someone else's file: before an import brings in a tag, every path its session and
 * its base name is checked against this project (inside it, no {@code .git}, no link in any
 * parent, nothing a terminal would take for a command), each tab is the session's own, and a
 * subagent's parent is a tab of the same session. One bad value refuses the whole import, in one line.
 */
final class UntrustedSession {
  private UntrustedSession() {}

  static void check(Path bundle, Path project, SessionFile session, ProjectBase base) {
    Set<String> tabs = new HashSet<>();
    for (SessionFile.Tab tab : session.tabs()) {
      if (!tabs.add(tab.tabId())) {
        throw refused(bundle, "tab " + tab.tabId() + " is in its session twice");
      }
    }
    for (SessionFile.Tab tab : session.tabs()) {
      if (tab.subagentOf() != null && !tabs.contains(tab.subagentOf())) {
        throw refused(bundle, "tab " + tab.tabId() + " names " + ProjectPaths.shown(tab.subagentOf())
            + " as its parent, which is no tab of its session");
      }
      for (SessionFile.Checkpoint cp : tab.checkpoints()) {
        for (SessionFile.Change change : cp.changes()) {
          path(bundle, project, change.path(), "tab " + tab.tabId() + " #" + cp.number());
        }
      }
    }
    for (String path : base.files().keySet()) {
      path(bundle, project, path, "its base");
    }
  }

  private static void path(Path bundle, Path project, String path, String where) {
    try {
      ProjectPaths.checkIn(project, path);
    } catch (CheckpointException e) {
      throw refused(bundle, where + " names a path Waymark does not restore (" + e.getMessage() + ")");
    }
    if (path.chars().anyMatch(c -> c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))) {
      throw refused(bundle, where + " names a path with a control character in it: " + ProjectPaths.shown(path));
    }
  }

  static SessionException refused(Path bundle, String why) {
    return new SessionException(ErrorKind.REFUSED, bundle + " is refused: " + why + ". Nothing was imported.");
  }
}
