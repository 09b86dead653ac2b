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
  static final String TEMP_SUFFIX = dev.waymark.core.checkpoint.ShadowStore.WRITE_TEMP_SUFFIX;
  private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> OWNER_ONLY =
      java.nio.file.attribute.PosixFilePermissions.fromString("rw-------");

  /** Lets a test look at the temporary file once it holds the content, before it gets its final mode. */
  static volatile java.util.function.Consumer<Path> tempWritten = temp -> {};

  private AtomicWrite() {}

  static void replace(Path target, byte[] content) throws IOException {
    if (Files.isSymbolicLink(target)) {
      Files.write(target, content); // through the link, as an editor would; the link itself stays
      return;
    }
    Path temp = target.resolveSibling("." + target.getFileName() + TEMP_SUFFIX);
    Files.deleteIfExists(temp);
    try {
      // Created empty (so the umask gives a new file's mode), then made owner-only before any
      // content goes in: a private file's new content is never readable by others on the way.
      Files.createFile(temp);
      java.util.Set<java.nio.file.attribute.PosixFilePermission> newFile = null;
      try {
        newFile = Files.getPosixFilePermissions(temp, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(temp, OWNER_ONLY);
      } catch (UnsupportedOperationException notPosix) {
        // no modes on this file system
      }
      Files.write(temp, content, StandardOpenOption.WRITE);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      tempWritten.accept(temp);
      try {
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
          Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS));
        } else if (newFile != null) {
          Files.setPosixFilePermissions(temp, newFile);
        }
      } catch (UnsupportedOperationException notPosix) {
        // the file system keeps no modes to carry over
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
