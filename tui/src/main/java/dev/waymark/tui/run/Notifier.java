package dev.waymark.tui.run;

import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A desktop notification when a turn ends or an approval waits while the terminal is not focused:
 * OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty, Ghostty) or OSC 777 (foot, urxvt, VTE terminals
 * such as GNOME Terminal and Tilix) where the terminal is known to show them, else the bell. Inside
 * tmux the sequence is passed through to the terminal tmux runs in. The terminal says when it gains
 * or loses the focus; until it says anything it counts as focused, so nothing pops up needlessly.
 */
public final class Notifier {
  /** How this terminal is told. */
  public enum Kind { OSC9, OSC777, BELL }

  private final Consumer<String> terminal;
  private final Kind kind;
  private final boolean tmux;
  private volatile boolean focused = true;

  /** @param terminal writes an escape sequence to the terminal */
  public Notifier(Consumer<String> terminal, Kind kind, boolean tmux) {
    this.terminal = terminal;
    this.kind = kind;
    this.tmux = tmux;
  }

  /** The kind for the terminal the environment names ({@code TERM_PROGRAM}, {@code TERM}, {@code VTE_VERSION}). */
  public static Kind kindFor(Map<String, String> env) {
    String program = env.getOrDefault("TERM_PROGRAM", "").toLowerCase(Locale.ROOT);
    String term = env.getOrDefault("TERM", "").toLowerCase(Locale.ROOT);
    if (program.contains("iterm") || program.contains("wezterm") || program.contains("ghostty") || term.contains("kitty")
        || env.containsKey("WT_SESSION") || env.containsKey("KITTY_WINDOW_ID")) {
      return Kind.OSC9;
    }
    if (term.startsWith("foot") || term.startsWith("rxvt") || env.containsKey("VTE_VERSION")) {
      return Kind.OSC777;
    }
    return Kind.BELL;
  }

  /** What the terminal last said of its focus. */
  public void focused(boolean now) {
    focused = now;
  }

  public boolean focused() {
    return focused;
  }

  /**
   * Tells the user {@code body} if they look elsewhere; {@code bellRang}: the bell rang for it already,
   * so a terminal told by the bell is not rung twice. Returns whether anything was sent.
   */
  public boolean notify(String body, boolean bellRang) {
    if (focused || kind == Kind.BELL && bellRang) {
      return false;
    }
    terminal.accept(sequence(kind, tmux, body));
    return true;
  }

  static String sequence(Kind kind, boolean tmux, String body) {
    String text = body.replaceAll("[\\p{Cntrl};]", " ").strip(); // nothing that could end the sequence or split its fields
    String osc = switch (kind) {
      case OSC9 -> "\u001b]9;Waymark: " + text + "\u0007";
      case OSC777 -> "\u001b]777;notify;Waymark;" + text + "\u0007";
      case BELL -> "\u0007";
    };
    // tmux passes a sequence on to its own terminal only inside DCS tmux; … ST, its ESCs doubled
    return tmux && kind != Kind.BELL ? "\u001bPtmux;" + osc.replace("\u001b", "\u001b\u001b") + "\u001b\\" : osc;
  }
}
