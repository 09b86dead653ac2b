package dev.waymark.core.checkpoint.lib;

import dev.waymark.core.WaymarkHome;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes one thread of one process at a time the writer of a store file that is replaced or
 * appended to by several (two Waymark processes on one project share the store).
 */
public final class ExclusiveFile {
  /** A channel lock belongs to the process, so its threads take turns on a monitor first. */
  private static final ConcurrentHashMap<Path, Object> IN_PROCESS = new ConcurrentHashMap<>();

  public interface Work<T> {
    T run() throws IOException;
  }

  private ExclusiveFile() {}

  /** Runs {@code work} holding {@code file}'s lock (a {@code .lock} file beside it). */
  public static <T> T with(Path file, Work<T> work) throws IOException {
    Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
    synchronized (IN_PROCESS.computeIfAbsent(file.toAbsolutePath().normalize(), k -> new Object())) {
      if (!Files.exists(lockFile)) {
        WaymarkHome.writePrivate(lockFile, new byte[0], true);
      }
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
          FileLock lock = channel.lock()) {
        return work.run();
      }
    }
  }
}
