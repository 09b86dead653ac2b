package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Reads an overlay's upper directory into the changes it makes to its lower one (the project).
 *
 * <p>What overlayfs leaves there, mounted with {@code userxattr} as {@link LayerSupport} does: a
 * new or modified file or link as itself (copied up whole, its mode included); a deleted path as a
 * whiteout, a character device {@code 0:0}; a directory the command removed and made again (or
 * whose entries it deleted with {@code rm -rf} before refilling it) as an opaque directory, marked
 * by the {@code user.overlay.opaque} attribute {@code y}: what the lower holds below it and it
 * does not is deleted. A renamed directory is a copy and a whiteout ({@code rename} of a lower
 * directory fails with {@code EXDEV} without {@code redirect_dir}, and {@code mv} copies).
 *
 * <p>Reads only the upper directory, and the lower only below whiteouts and opaque directories:
 * the cost grows with what the command changed, not with the project.
 */
public final class UpperReader {
  private static final String OPAQUE = "overlay.opaque";
  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFREG = 0100000;
  private static final int S_IFLNK = 0120000;
  private static final int S_IFCHR = 0020000;

  private UpperReader() {}

  /**
   * The changes {@code upper} makes to {@code lower}, parents before what is below them. An empty
   * directory at one of {@code mountPoints} (made by the sandbox to mount over) is not a change.
   */
  public static LayerChanges read(Path upper, Path lower, Set<String> mountPoints) throws IOException {
    List<LayerChange> changes = new ArrayList<>();
    List<String> unsupported = new ArrayList<>();
    List<LayerChanges.Unnamed> unnamed = new ArrayList<>();
    readDirectory(upper, lower, "", false, mountPoints, changes, unsupported, unnamed);
    return new LayerChanges(changes, unsupported, unnamed);
  }

  /**
   * The names in {@code dir}, sorted, from one listing. An entry whose name is not UTF-8 (Java
   * reads it with a stand-in character, and that name leads nowhere) goes to {@code notUtf8}
   * instead, by the name Java shows, with the raw path that does lead there: it is not read
   * further, but moved or deleted whole ({@link LayerChanges.Unnamed}).
   */
  private static List<String> namesApart(Path dir, Map<String, Path> notUtf8) throws IOException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(dir)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        String name = entry.getFileName().toString();
        if (name.indexOf('\uFFFD') >= 0 && !dir.resolve(name).equals(entry)) {
          notUtf8.put(name, entry);
        } else {
          names.add(name);
        }
      }
    } catch (NoSuchFileException gone) {
      return List.of();
    }
    names.sort(null);
    return names;
  }

  /** {@code lowerHidden}: an opaque directory above hides the lower's entries here, so each one the upper lacks is deleted. */
  private static void readDirectory(Path upper, Path lower, String dir, boolean lowerHidden, Set<String> mountPoints,
      List<LayerChange> changes, List<String> unsupported, List<LayerChanges.Unnamed> unnamed) throws IOException {
    Path upperDir = dir.isEmpty() ? upper : upper.resolve(dir);
    Map<String, Path> notUtf8 = new TreeMap<>();
    List<String> upperNames = namesApart(upperDir, notUtf8);
    notUtf8.forEach((name, entry) -> unnamed.add(new LayerChanges.Unnamed(dir.isEmpty() ? name : dir + "/" + name, entry,
        lower.resolve(upper.relativize(entry)), dir)));
    // what the lower holds here, listed once: a new directory's thousands of files need no stat below
    Set<String> lowerNames = Files.isDirectory(dir.isEmpty() ? lower : lower.resolve(dir), LinkOption.NOFOLLOW_LINKS)
        ? new HashSet<>(names(dir.isEmpty() ? lower : lower.resolve(dir))) : Set.of();
    for (String name : upperNames) {
      String path = dir.isEmpty() ? name : dir + "/" + name;
      Path up = upperDir.resolve(name);
      Path low = lower.resolve(path);
      // one lstat: its type, bits and device number (a whiteout is the character device 0:0)
      Map<String, Object> attributes = Files.readAttributes(up, "unix:mode,rdev", LinkOption.NOFOLLOW_LINKS);
      int stMode = (Integer) attributes.get("mode");
      int type = stMode & S_IFMT;
      BasicFileAttributes below = lowerNames.contains(name) ? attributesOrNull(low) : null;
      if (type == S_IFCHR && (Long) attributes.get("rdev") == 0) {
        if (below != null) {
          deleteAll(lower, path, below, path, changes, unnamed);
        }
      } else if (type == S_IFDIR) {
        if (mountPoints.contains(path) && below == null && names(up).isEmpty()) {
          continue;
        }
        int mode = stMode & 07777;
        boolean belowIsDirectory = below != null && below.isDirectory();
        boolean opaque = opaque(up);
        // a file or link the command replaced by a directory: made over its whiteout, so opaque; a directory that
        // is not was one when the command started (or was made new), and what is there now is someone else's
        if (below != null && !belowIsDirectory && opaque) {
          changes.add(LayerChange.deleted(path));
        }
        if (!belowIsDirectory || mode != mode(low)) {
          changes.add(new LayerChange(path, LayerChange.Kind.DIRECTORY, up, mode));
        }
        boolean hides = lowerHidden || opaque;
        if (belowIsDirectory && hides) {
          Set<String> kept = new TreeSet<>(names(up));
          for (String lowerName : names(low)) {
            if (!kept.contains(lowerName)) {
              String gone = path + "/" + lowerName;
              deleteAll(lower, gone, attributesOrNull(lower.resolve(gone)), path, changes, unnamed);
            }
          }
        }
        readDirectory(upper, lower, path, hides || !belowIsDirectory, mountPoints, changes, unsupported, unnamed);
      } else if (type == S_IFLNK || type == S_IFREG) {
        if (below != null && below.isDirectory()) {
          deleteAll(lower, path, below, path, changes, unnamed); // a directory replaced by a file or link
        }
        changes.add(type == S_IFLNK ? new LayerChange(path, LayerChange.Kind.SYMLINK, up, -1)
            : new LayerChange(path, LayerChange.Kind.FILE, up, stMode & 07777));
      } else {
        unsupported.add(path);
      }
    }
  }

  /**
   * Deletions of {@code path} in the lower and of everything below it, deepest first, each as
   * following from {@code with}'s whiteout or opaque directory: the lower is listed as it is now,
   * and the apply tells what was put there while the command ran from what it deleted.
   */
  private static void deleteAll(Path lower, String path, BasicFileAttributes attributes, String with,
      List<LayerChange> changes, List<LayerChanges.Unnamed> unnamed) throws IOException {
    if (attributes != null && attributes.isDirectory()) {
      Path dir = lower.resolve(path);
      Map<String, Path> notUtf8 = new TreeMap<>();
      List<String> names = namesApart(dir, notUtf8);
      // deleted before the directory is
      notUtf8.forEach((name, entry) -> unnamed.add(new LayerChanges.Unnamed(path + "/" + name, null, entry, path)));
      for (String name : names) {
        String child = path + "/" + name;
        deleteAll(lower, child, attributesOrNull(lower.resolve(child)), with, changes, unnamed);
      }
    }
    if (attributes != null) {
      changes.add(LayerChange.deleted(path, with));
    }
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (NoSuchFileException gone) {
      return List.of();
    }
  }

  static BasicFileAttributes attributesOrNull(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException missing) {
      return null;
    } catch (FileSystemException notADirectory) {
      if (notADirectory.getReason() != null && notADirectory.getReason().contains("Not a directory")) {
        return null; // below a file the command replaced by a directory
      }
      throw notADirectory;
    }
  }

  /** Whether {@code path} is a whiteout: a character device with device number 0. */
  static boolean whiteout(Path path, BasicFileAttributes attributes) throws IOException {
    if (!attributes.isOther()) {
      return false;
    }
    int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    long rdev = (Long) Files.getAttribute(path, "unix:rdev", LinkOption.NOFOLLOW_LINKS);
    return (mode & 0170000) == 0020000 && rdev == 0;
  }

  /** Whether directory {@code dir} is opaque: it hides what the lower holds at its path. */
  static boolean opaque(Path dir) throws IOException {
    UserDefinedFileAttributeView view = Files.getFileAttributeView(dir, UserDefinedFileAttributeView.class,
        LinkOption.NOFOLLOW_LINKS);
    if (view == null || !view.list().contains(OPAQUE)) {
      return false;
    }
    ByteBuffer value = ByteBuffer.allocate(view.size(OPAQUE));
    view.read(OPAQUE, value);
    value.flip();
    return StandardCharsets.US_ASCII.decode(value).toString().equals("y");
  }

  static int mode(Path path) throws IOException {
    return (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
  }
}
