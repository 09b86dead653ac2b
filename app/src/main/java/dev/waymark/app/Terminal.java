package dev.waymark.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The user's terminal while {@code waymark shell} runs: its settings, put back when the shell was
 * stopped mid-line (its terminal relay killed leaves it raw); and Ctrl+C, which is the shell's,
 * never Waymark's.
 */
final class Terminal {
  private final String settings; // as stty -g gives them; empty when standard input is no terminal

  private Terminal(String settings) {
    this.settings = settings;
  }

  /** The terminal's settings now. */
  static Terminal held() {
    if (!onATerminal()) {
      return new Terminal("");
    }
    try {
      Process stty = new ProcessBuilder("stty", "-g").redirectInput(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
      return new Terminal(stty.waitFor() == 0 ? out : "");
    } catch (IOException e) {
      return new Terminal("");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Terminal("");
    }
  }

  /** Puts the settings back. */
  void restore() {
    if (settings.isEmpty()) {
      return;
    }
    try {
      new ProcessBuilder("stty", settings).redirectInput(ProcessBuilder.Redirect.INHERIT).start().waitFor();
    } catch (IOException e) {
      // the terminal is gone (a dropped connection): nothing to put back
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean onATerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  /** Undoes {@link #ignoreInterrupts}. */
  interface Quiet extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Tells the shell's own terminal ({@code script}, somewhere below {@code shell}) when the user's
   * is resized: it is in a session of its own, so the system tells only Waymark.
   */
  static Quiet relayResizes(Process shell) {
    try {
      Signal resized = new Signal("WINCH");
      SignalHandler before = Signal.handle(resized, signal -> shell.descendants()
          .filter(p -> p.info().command().map(c -> c.endsWith("/script")).orElse(false))
          .forEach(p -> {
            try {
              new ProcessBuilder("kill", "-WINCH", Long.toString(p.pid())).start();
            } catch (IOException gone) {
              // the shell is ending
            }
          }));
      return () -> Signal.handle(resized, before);
    } catch (IllegalArgumentException unsupported) {
      return () -> { };
    }
  }

  /**
   * Ctrl+C before the shell's terminal takes the keys (or where there is no {@code script}) reaches
   * Waymark too: a handler that does nothing (not SIG_IGN, which the shell's commands would inherit).
   */
  static Quiet ignoreInterrupts() {
    try {
      Signal interrupt = new Signal("INT");
      SignalHandler before = Signal.handle(interrupt, signal -> { });
      return () -> Signal.handle(interrupt, before);
    } catch (IllegalArgumentException unsupported) {
      return () -> { };
    }
  }
}
