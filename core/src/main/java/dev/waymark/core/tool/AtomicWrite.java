package dev.waymark.core.tool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a file's content all at once: a temporary file beside it, then a rename. A process
 * killed in the middle leaves the old content or the new, never a truncated file (found by the
 * crash harness: {@code Files.write} truncates first).
 */
final class AtomicWrite {
  static final String TEMP_SUFFIX = ".waymark-write.tmp";

  private AtomicWrite() {}

  static void replace(Path target, byte[] content) throws IOException {
    if (Files.isSymbolicLink(target)) {
      Files.write(target, content); // through the link, as an editor would; the link itself stays
      return;
    }
    Path temp = target.resolveSibling("." + target.getFileName() + TEMP_SUFFIX);
    Files.deleteIfExists(temp);
    try {
      Files.write(temp, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS));
        } catch (UnsupportedOperationException notPosix) {
          // the file system keeps no modes to carry over
        }
      }
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
