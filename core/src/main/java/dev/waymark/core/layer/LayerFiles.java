package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The file operations of an apply, on paths that name their last component in a directory held
 * open ({@link Beneath#entry}): none of them follows that last name, so none writes through a link.
 */
final class LayerFiles {
  private static final String TEMP_SUFFIX = ".waymark-layer.tmp";

  private LayerFiles() {}

  /** Whether two paths hold the same kind, bytes (or link target) and mode. */
  static boolean sameVersion(Path a, Path b) throws IOException {
    BasicFileAttributes x = Files.readAttributes(a, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    BasicFileAttributes y = Files.readAttributes(b, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (x.isSymbolicLink() || y.isSymbolicLink()) {
      return x.isSymbolicLink() && y.isSymbolicLink() && Files.readSymbolicLink(a).equals(Files.readSymbolicLink(b));
    }
    return x.isRegularFile() && y.isRegularFile() && x.size() == y.size()
        && UpperReader.mode(a) == UpperReader.mode(b)
        && Arrays.equals(Files.readAllBytes(a), Files.readAllBytes(b));
  }

  /** What an upper entry is now: a later write through the mount changes it. */
  static String stamp(Path upperEntry) throws IOException {
    var attributes = Files.readAttributes(upperEntry, "unix:ctime,size,mode,ino", LinkOption.NOFOLLOW_LINKS);
    return attributes.get("ctime") + ":" + attributes.get("size") + ":" + attributes.get("mode") + ":" + attributes.get("ino");
  }

  /**
   * Puts a copy of {@code source} at {@code target} whole (mode and link kept), leaving the source:
   * made under a new name beside it (an exclusive create, which no link there can redirect), then
   * renamed over it.
   */
  static void copyInto(Path source, Path target) throws IOException {
    Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + TEMP_SUFFIX);
    try {
      Files.copy(source, temp, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Puts {@code source} at {@code target} whole: a rename where they share a file system, else a
   * copy beside the target (mode and link kept) renamed over it.
   */
  static void moveInto(Path source, Path target) throws IOException {
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
      return;
    } catch (AtomicMoveNotSupportedException otherFileSystem) {
      // copied below
    } catch (IOException e) {
      if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
        throw e;
      }
      if (!String.valueOf(e.getMessage()).contains("cross-device")) {
        throw e;
      }
    }
    copyInto(source, target);
    Files.delete(source);
  }

  /** Sets a directory's mode without following a link put in its place (opened with {@code O_NOFOLLOW}, then fchmod). */
  static void setDirectoryMode(Path dir, int mode) throws IOException {
    try {
      Files.setAttribute(dir, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
    } catch (AccessDeniedException unreadable) {
      // a directory its owner cannot read (mode 0311) cannot be opened: chmod by its name, just checked not a link
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        throw unreadable;
      }
      Files.setAttribute(dir, "unix:mode", mode);
    }
  }

  static BasicFileAttributes attributesOrNull(Path path) throws IOException {
    return path == null ? null : UpperReader.attributesOrNull(path);
  }

  /**
   * The names in each directory, listed once: whether a path exists is then known without a stat
   * that fails (an exception each) for each of thousands of new files. Keyed by the directory's
   * relative path ({@code dirs} names it as it was reached, without a link).
   */
  static final class Listings {
    private final Map<String, Set<String>> byDirectory = new HashMap<>();
    private final Beneath dirs;

    Listings(Beneath dirs) {
      this.dirs = dirs;
    }

    boolean holds(String path) throws IOException {
      int slash = path.lastIndexOf('/');
      String parent = slash < 0 ? "" : path.substring(0, slash);
      Set<String> names = byDirectory.get(parent);
      if (names == null) {
        names = new HashSet<>();
        var dir = dirs.directoryPath(parent);
        if (dir.isPresent()) {
          try (var entries = Files.list(dir.get())) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
              names.add(entry.getFileName().toString());
            }
          } catch (NoSuchFileException gone) {
            // empty
          }
        }
        byDirectory.put(parent, names);
      }
      return names.contains(path.substring(slash + 1));
    }
  }

  /** {@link Listings} of the upper directory, by path: Waymark's own, out of every sandbox's reach but its mount's. */
  static final class UpperListings {
    private final Map<Path, Set<String>> byDirectory = new HashMap<>();

    boolean holds(Path path) throws IOException {
      Set<String> names = byDirectory.get(path.getParent());
      if (names == null) {
        names = new HashSet<>();
        if (Files.isDirectory(path.getParent(), LinkOption.NOFOLLOW_LINKS)) {
          try (var entries = Files.list(path.getParent())) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
              names.add(entry.getFileName().toString());
            }
          } catch (NoSuchFileException gone) {
            // empty
          }
        }
        byDirectory.put(path.getParent(), names);
      }
      return names.contains(path.getFileName().toString());
    }
  }

  /**
   * Makes {@code dir} (and what is missing above it) readable by its owner only, as everything in
   * Waymark's data directory is: a layer holds what a command wrote, which may be private.
   */
  static void privateDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException notPosix) {
      Files.createDirectories(dir);
    }
  }
}
