package dev.waymark.core.layer;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's directories as an apply reaches them: from the project's root one name at a time,
 * never through a link. Each directory reached is held open ({@code openat} with
 * {@code O_NOFOLLOW}, through {@link SecureDirectoryStream}), and an entry in it is named through
 * the open directory, {@code /proc/self/fd/N/name}: the kernel resolves that to the directory
 * held, whatever its path has become since, and a rename, mkdir, unlink, symlink or exclusive
 * create never follows the last name. So a directory someone replaces by a link, before or during
 * the apply, is not written through: a path below it is {@link #entry empty}, and {@link #linkAbove}
 * says which link refused it.
 *
 * <p>Where a directory cannot be held open so (no {@code /proc}, or {@code sun.nio.fs} not opened to
 * Waymark, as when it is not started from its jar), each name on the way is checked with an lstat
 * as the entry is asked for: the same refusal, with the window between check and use a local
 * process could race (applies themselves are serialized per project).
 */
final class Beneath implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Beneath.class);
  /** Directories held open at once: an apply of tens of thousands of new directories does not run out of descriptors. */
  private static final int HELD = 128;
  private static final Path FDS = Path.of("/proc/self/fd");
  private static final Field DFD = descriptorField();

  private final Path root;
  /** Whether directories are held open and named through their descriptors, else checked by name each time (see above). */
  private final boolean holding;
  /** By project-relative path ("" the root), least recently used first; a directory let go is opened again when asked for. */
  private final Map<String, Held> held = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Held> eldest) {
      if (size() > HELD) {
        eldest.getValue().close();
        return true;
      }
      return false;
    }
  };

  Beneath(Path root) {
    this(root, DFD != null);
  }

  /** With {@code holding} false, as where directories cannot be held open (a test tries both). */
  Beneath(Path root, boolean holding) {
    this.root = root;
    this.holding = holding && DFD != null;
  }

  /** An open directory, and how an entry in it is named. */
  private record Held(SecureDirectoryStream<Path> stream, Path named) {
    Path entry(String name) {
      return named.resolve(name);
    }

    void close() {
      try {
        if (stream != null) {
          stream.close();
        }
      } catch (IOException e) {
        // closing a directory
      }
    }
  }

  /**
   * The path that names {@code path}'s last component in its directory as it was reached from
   * the root; empty when a directory on the way is missing, not a directory, or a link. Valid until
   * the next call (a directory held may be let go then): use it at once.
   */
  Optional<Path> entry(String path) throws IOException {
    int slash = path.lastIndexOf('/');
    Held dir = directory(slash < 0 ? "" : path.substring(0, slash));
    return dir == null ? Optional.empty() : Optional.of(dir.entry(path.substring(slash + 1)));
  }

  /** {@code path} itself as a directory reached without a link, named as {@link #entry} names; empty if it is not one. */
  Optional<Path> directoryPath(String path) throws IOException {
    Held dir = directory(path);
    return dir == null ? Optional.empty() : Optional.of(dir.named());
  }

  /** What stands where a directory on the way to a path should: a link, or a file. */
  record Blocker(String path, boolean link) {}

  /** The first name on the way to {@code path} (not itself) that is there but not a directory: a link or a file. */
  Optional<Blocker> blockerAbove(String path) throws IOException {
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      String above = path.substring(0, slash);
      BasicFileAttributes attributes = entryAttributes(above);
      if (attributes == null) {
        return Optional.empty(); // missing: made by the apply, or gone
      }
      if (!attributes.isDirectory()) {
        return Optional.of(new Blocker(above, attributes.isSymbolicLink()));
      }
    }
    return Optional.empty();
  }

  /** The first directory on the way to {@code path} (not itself) that is a link now, if one is. */
  Optional<String> linkAbove(String path) throws IOException {
    return blockerAbove(path).filter(Blocker::link).map(Blocker::path);
  }

  /** Forgets what is held at and below {@code path}: it was deleted, or is to be made again. */
  void forget(String path) {
    held.entrySet().removeIf(e -> {
      boolean below = e.getKey().equals(path) || e.getKey().startsWith(path + "/");
      if (below) {
        e.getValue().close();
      }
      return below;
    });
  }

  private BasicFileAttributes entryAttributes(String path) throws IOException {
    Optional<Path> at = entry(path);
    return at.isEmpty() ? null : UpperReader.attributesOrNull(at.get());
  }

  /** The directory at {@code path}, reached from the root without a link; null if it cannot be. */
  private Held directory(String path) throws IOException {
    Held known = held.get(path);
    if (known != null) {
      return known;
    }
    Held found;
    if (path.isEmpty()) {
      found = holding ? openRoot(root) : new Held(null, root);
    } else {
      int slash = path.lastIndexOf('/');
      Held parent = directory(slash < 0 ? "" : path.substring(0, slash));
      if (parent == null) {
        return null;
      }
      String name = path.substring(slash + 1);
      // looked at first: opening a FIFO someone put there would wait for a writer
      BasicFileAttributes attributes = UpperReader.attributesOrNull(parent.entry(name));
      if (attributes == null || !attributes.isDirectory()) {
        return null;
      }
      found = parent.stream() == null ? new Held(null, parent.entry(name)) : open(parent, name);
    }
    if (found != null && found.stream() != null) {
      held.put(path, found); // a directory checked by name only is checked again each time
    }
    return found;
  }

  /** The root, held open (its own path is the caller's and trusted). */
  private static Held openRoot(Path root) throws IOException {
    DirectoryStream<Path> stream = Files.newDirectoryStream(root);
    if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
      stream.close();
      return new Held(null, root);
    }
    return held(secure);
  }

  /** {@code name} in {@code parent}, opened without following it; null if it is no longer a directory. */
  private static Held open(Held parent, String name) throws IOException {
    SecureDirectoryStream<Path> child;
    try {
      child = parent.stream().newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException gone) {
      return null;
    } catch (FileSystemException e) {
      String reason = String.valueOf(e.getReason());
      if (reason.contains("symbolic links") || reason.contains("Not a directory") || reason.contains("Too many levels")) {
        return null; // made a link or a file since it was looked at
      }
      if (reason.contains("Permission denied")) {
        return new Held(null, parent.entry(name)); // cannot be listed, so not held: its path, checked just now
      }
      throw e;
    }
    return held(child);
  }

  private static Held held(SecureDirectoryStream<Path> stream) throws IOException {
    try {
      return new Held(stream, FDS.resolve(Integer.toString(DFD.getInt(stream))));
    } catch (IllegalAccessException | RuntimeException e) {
      stream.close();
      throw new IOException("cannot name an open directory: " + e, e);
    }
  }

  /** The descriptor of an open {@code UnixSecureDirectoryStream}, when this JDK lets it be read and {@code /proc} names it. */
  private static Field descriptorField() {
    try {
      if (!Files.isDirectory(FDS)) {
        return null;
      }
      Field field = Class.forName("sun.nio.fs.UnixSecureDirectoryStream").getDeclaredField("dfd");
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.info("layers are applied checking each directory by name (a local process could race it): {}", e.toString());
      return null;
    }
  }

  @Override
  public void close() {
    held.values().forEach(Held::close);
    held.clear();
  }
}
