package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.TempNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Consumer;

/**
 * Replaces a file's content all at once: a temporary file beside it, then a rename. A process
 * killed in the middle leaves the old content or the new, never a truncated file (found by the
 * crash harness: {@code Files.write} truncates first).
 */
final class AtomicWrite {
  static final String TEMP_SUFFIX = TempNames.WRITE_SUFFIX;

  /** Lets a test look at the temporary file once it holds the content, before it gets its final mode. */
  static volatile Consumer<Path> tempWritten = temp -> {};

  private AtomicWrite() {}

  /**
   * Writes {@code content} at {@code target} with permission bits {@code mode}
   * ({@link FileVersion#NO_MODE}: the existing file's, else what the umask gives a new file). The
   * temporary file has that mode, less the umask, from its creation: a private file's content is
   * never readable by others on the way.
   */
  static void replace(Path target, byte[] content, int mode) throws IOException {
    if (Files.isSymbolicLink(target)) {
      Files.write(target, content); // through the link, as an editor would; the link itself stays
      return;
    }
    Path temp = TempNames.beside(target, TEMP_SUFFIX);
    Files.deleteIfExists(temp);
    int finalMode = mode != FileVersion.NO_MODE ? mode
        : Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) ? FileModes.read(target) : FileModes.newFileMode();
    try {
      try (FileChannel channel = FileModes.create(temp, finalMode)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      tempWritten.accept(temp);
      FileModes.set(temp, finalMode);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
