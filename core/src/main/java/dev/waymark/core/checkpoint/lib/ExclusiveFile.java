package dev.waymark.core.checkpoint.lib;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
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

  /** Creates {@code file} readable by its owner only, where the file system has POSIX modes; one that exists is kept. */
  private static void createPrivate(Path file) throws IOException {
    try {
      if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.createFile(file);
      }
    } catch (FileAlreadyExistsException another) {
      // another process made it between the check and here: the same empty lock file
    }
  }

  /** Runs {@code work} holding {@code file}'s lock (a {@code .lock} file beside it). */
  public static <T> T with(Path file, Work<T> work) throws IOException {
    Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
    synchronized (IN_PROCESS.computeIfAbsent(file.toAbsolutePath().normalize(), k -> new Object())) {
      if (!Files.exists(lockFile)) {
        createPrivate(lockFile);
      }
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
          FileLock lock = channel.lock()) {
        return work.run();
      }
    }
  }
}
