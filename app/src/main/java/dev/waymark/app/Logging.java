package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.logging.LogManager;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sends every log line, Waymark's, JGit's and the JDK's, to a file under the Waymark home, and
 * nothing to the terminal. Must run before the first logger is created.
 */
final class Logging {
  private Logging() {}

  static Path start(WaymarkHome home) {
    Path dir = home.logsDir();
    try {
      WaymarkHome.createPrivateDirectories(dir);
      Path log = dir.resolve("waymark.log");
      if (!Files.exists(log)) {
        try {
          Files.createFile(log, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException notPosix) {
          Files.createFile(log);
        }
      }
      System.setProperty("waymark.logDir", dir.toString());
    } catch (IOException e) {
      // Logging then goes to the temporary directory; the command itself can still run.
      System.setProperty("waymark.logDir", System.getProperty("java.io.tmpdir"));
    }
    LogManager.getLogManager().reset();
    SLF4JBridgeHandler.install();
    return dir;
  }
}
