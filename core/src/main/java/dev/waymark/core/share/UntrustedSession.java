package dev.waymark.core.share;

import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.ProjectPaths;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * A bundle is someone else's file: before an import brings in a tag, every path its session and
 * its base name is checked against this project (inside it, no {@code .git}, no link in any
 * parent, nothing a terminal would take for a command), each tab is the session's own, and a
 * subagent's parent is a tab of the same session, and the child a subagent's result names is no
 * other tab of this project. One bad value refuses the whole import, in one line.
 */
final class UntrustedSession {
  private UntrustedSession() {}

  /** {@code others}: the tabs this project has already, which nothing imported may act on. */
  static void check(Path bundle, Path project, Set<String> others, SessionFile session, ProjectBase base) {
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
        for (ChildLink link : SessionCodec.children(cp)) {
          child(bundle, others, link, "tab " + tab.tabId() + " #" + cp.number());
        }
      }
    }
    for (String path : base.files().keySet()) {
      path(bundle, project, path, "its base");
    }
    // shown in the refusal that names the files that differ
    if (base.head() != null && !base.head().matches("[0-9a-f]{40}")) {
      throw refused(bundle, "its base names " + ProjectPaths.shown(base.head()) + " as its commit, which is no commit id");
    }
    for (String shown : new String[] {base.branch(), base.project()}) {
      if (shown != null && controlled(shown)) {
        throw refused(bundle, "its base holds a name with a control character in it: " + ProjectPaths.shown(shown));
      }
    }
  }

  /**
   * A parent checkpoint's child link (or, in an older session, its subagent's result) names the tab its undo acts on: never one of this project's others (one the
   * export left out, an isolated child, is in neither, and its undo finds nothing).
   */
  private static void child(Path bundle, Set<String> others, ChildLink link, String where) {
    if (others.contains(link.tab())) {
      throw refused(bundle, where + " holds a subagent's result naming tab " + ProjectPaths.shown(link.tab())
          + ", which is a tab of this project, not of its session");
    }
  }

  private static void path(Path bundle, Path project, String path, String where) {
    try {
      ProjectPaths.checkIn(project, path);
    } catch (CheckpointException e) {
      throw refused(bundle, where + " names a path Waymark does not restore (" + e.getMessage() + ")");
    }
    if (controlled(path)) {
      throw refused(bundle, where + " names a path with a control character in it: " + ProjectPaths.shown(path));
    }
  }

  private static boolean controlled(String text) {
    return text.chars().anyMatch(c -> c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0));
  }

  static SessionException refused(Path bundle, String why) {
    return new SessionException(ErrorKind.REFUSED, bundle + " is refused: " + why + ". Nothing was imported.");
  }
}
