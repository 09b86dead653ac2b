package dev.waymark.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where Waymark keeps its own data: shadow repositories, sessions and logs.
 *
 * <p>{@code $WAYMARK_HOME} wins; otherwise {@code $XDG_DATA_HOME/waymark}; otherwise
 * {@code ~/.local/share/waymark}. Nothing is ever written into the user's project.
 */
public record WaymarkHome(Path root) {

  public WaymarkHome {
    root = root.toAbsolutePath().normalize();
  }

  public static WaymarkHome fromEnvironment() {
    return fromEnvironment(System.getenv(), Path.of(System.getProperty("user.home")));
  }

  static WaymarkHome fromEnvironment(Map<String, String> env, Path userHome) {
    String explicit = env.get("WAYMARK_HOME");
    if (explicit != null && !explicit.isBlank()) {
      return new WaymarkHome(Path.of(explicit));
    }
    String xdg = env.get("XDG_DATA_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return new WaymarkHome(Path.of(xdg, "waymark"));
    }
    return new WaymarkHome(userHome.resolve(".local/share/waymark"));
  }

  public Path projectsDir() {
    return root.resolve("projects");
  }

  public Path logsDir() {
    return root.resolve("logs");
  }

  /** Creates {@code dir} and any missing parents, each new one readable by its owner only. */
  public static Path createPrivateDirectories(Path dir) throws IOException {
    Path absolute = dir.toAbsolutePath().normalize();
    Path missingFrom = absolute;
    while (missingFrom.getParent() != null && !Files.exists(missingFrom.getParent())) {
      missingFrom = missingFrom.getParent();
    }
    Files.createDirectories(absolute);
    for (Path p = absolute; p != null && p.startsWith(missingFrom); p = p.getParent()) {
      restrictToOwner(p);
    }
    restrictToOwner(absolute);
    return absolute;
  }

  /**
   * Writes {@code bytes} to {@code file}, appended or replacing what it held; a file it creates is
   * readable by its owner only, as everything Waymark keeps is.
   */
  public static void writePrivate(Path file, byte[] bytes, boolean append) throws IOException {
    Set<OpenOption> options = new HashSet<>(List.of(
        StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING));
    FileAttribute<?>[] attributes = file.getFileSystem().supportedFileAttributeViews().contains("posix")
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
        : new FileAttribute<?>[0];
    try (var channel = Files.newByteChannel(file, options, attributes)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }
  }

  /**
   * Replaces {@code target} with {@code bytes} atomically (a private temporary file beside it, then
   * a rename), so that a reader sees the old content or the new, never a part.
   */
  public static void replacePrivate(Path target, byte[] bytes) throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    try {
      writePrivate(temp, bytes, false);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static void restrictToOwner(Path dir) throws IOException {
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException notPosix) {
      // Non-POSIX file systems keep their default access rules.
    }
  }
}
