package dev.waymark.tui.terminal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Consumer;

/**
 * The system clipboard, reached through the terminal with OSC 52, which works over ssh as well: the
 * terminal Waymark draws in sets its clipboard. Inside tmux the sequence goes twice: plain, which
 * tmux takes when {@code set-clipboard} is {@code on}, and wrapped to pass through to the terminal
 * tmux runs in, when {@code allow-passthrough} is on.
 */
public final class Clipboard {
  private final Consumer<String> terminal;
  private final boolean tmux;

  /** @param terminal writes an escape sequence to the terminal */
  public Clipboard(Consumer<String> terminal, boolean tmux) {
    this.terminal = terminal;
    this.tmux = tmux;
  }

  /** Whether the copy went through tmux, which needs a setting to pass it on. */
  public boolean tmux() {
    return tmux;
  }

  public void copy(String text) {
    terminal.accept(sequence(text, tmux));
  }

  static String sequence(String text, boolean tmux) {
    String osc = "\u001b]52;c;" + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)) + "\u0007";
    // tmux passes a sequence on to its own terminal only inside DCS tmux; … ST, its ESCs doubled
    return tmux ? osc + "\u001bPtmux;" + osc.replace("\u001b", "\u001b\u001b") + "\u001b\\" : osc;
  }
}
