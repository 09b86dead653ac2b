package dev.waymark.app;

import dev.waymark.core.session.SessionFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** {@code waymark shell} without {@code --tab}: the session's tabs by title, one to choose. */
final class ShellTabs {
  private ShellTabs() {}

  /**
   * The session's only tab; else, on a terminal, the tab the user picks from the list (by number or
   * id); else empty, the list printed with how to name one.
   */
  static Optional<HeadlessTab> choose(HeadlessTab session, Stdin stdin, PrintWriter err) throws IOException {
    List<SessionFile.Tab> tabs = session.file.tabs().stream().filter(t -> !Boolean.TRUE.equals(t.closed())).toList();
    if (tabs.isEmpty()) {
      tabs = session.file.tabs();
    }
    if (tabs.size() == 1) {
      return Optional.of(session.withTab(tabs.get(0).tabId()));
    }
    err.println("waymark: session " + session.file.id() + " has " + tabs.size() + " tabs:");
    for (int i = 0; i < tabs.size(); i++) {
      SessionFile.Tab tab = tabs.get(i);
      err.println(String.format("  %d  %s  %s", i + 1, tab.tabId(), tab.title() == null || tab.title().isBlank()
          ? "(untitled)" : tab.title()));
    }
    if (!stdin.terminal()) {
      err.println("waymark: name one with --tab ID.");
      return Optional.empty();
    }
    err.print("Which tab (number or id)? ");
    err.flush();
    String answer = line(stdin.stream()).strip();
    for (int i = 0; i < tabs.size(); i++) {
      if (answer.equals(String.valueOf(i + 1)) || answer.equals(tabs.get(i).tabId())) {
        return Optional.of(session.withTab(tabs.get(i).tabId()));
      }
    }
    err.println("waymark: no tab \"" + answer + "\" in the list; name one with --tab ID.");
    return Optional.empty();
  }

  /** One line, read a byte at a time: what follows it is the shell's, not this reader's buffer. */
  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int b; (b = in.read()) >= 0 && b != '\n';) {
      bytes.write(b);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
