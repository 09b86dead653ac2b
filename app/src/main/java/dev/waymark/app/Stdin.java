package dev.waymark.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Standard input, and whether it is a terminal (then {@code exec} never waits on it for a prompt). */
record Stdin(InputStream stream, boolean terminal) {
  static Stdin ofProcess() {
    return new Stdin(System.in, isTerminal());
  }

  /** Whether file descriptor 0 is a terminal: Java 17's {@code System.console()} also needs stdout to be one. */
  private static boolean isTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return System.console() != null; // no /proc (macOS): the best Java 17 can tell
    }
  }
}
