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
