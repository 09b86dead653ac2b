package dev.waymark.core.checkpoint.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Lock files that every Waymark of this user on one project shares, whatever its
 * {@code WAYMARK_HOME}: in a directory of the user's own beside the system's temporary files,
 * named by a hash of the project's real path. Two homes keep two stores, but there is one project.
 */
public final class ProjectLocks {
  private ProjectLocks() {}

  /** The lock that serializes applies to {@code project}; empty where no such directory can be had. */
  public static Optional<Path> apply(Path project) {
    try {
      Path dir = Path.of(System.getProperty("java.io.tmpdir"), "waymark-locks-" + System.getProperty("user.name"));
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
      // another user's directory, or a link someone put there, would let them hold or move the lock
      if (!Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))) {
        return Optional.empty();
      }
      return Optional.of(dir.resolve("apply-" + hash(project.toRealPath().toString()) + ".lock"));
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return Optional.empty();
    }
  }

  private static String hash(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JVM has SHA-256
    }
  }
}
