package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileStat;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hard links, in the store, to the files of the user's object database (packs and loose
 * objects), renewed before each command. The earlier content of a file the user's index vouched
 * for is read from the user's objects after the command; a command that deletes or prunes them
 * ({@code rm -rf .git}, {@code git gc --prune=now}) must not take it away. A link shares the
 * file's blocks (nothing is copied, the user's repository is not written) and is dropped once the
 * user's repository no longer has the file and no command of any Waymark process may still need
 * it. Where links cannot be made (the store on another file system), the user's objects are read
 * as they are, and such a command can still take an earlier content away.
 */
public final class UserObjectLinks {
  private static final Logger LOG = LoggerFactory.getLogger(UserObjectLinks.class);
  private static final Pattern LOOSE_DIRECTORY = Pattern.compile("[0-9a-f]{2}");

  private final Path source;
  /** A git directory holding only {@code objects/}: JGit reads the links there as a repository. */
  private final Path mirror;
  /** What is known of each object directory ({@code pack}, {@code 00} to {@code ff}), by name; null until the mirror was first listed. */
  private Map<String, Dir> dirs;
  private boolean unavailable;

  /** One object directory: its files in the user's repository as last listed, and the links made to them. */
  private static final class Dir {
    FileTime modified;
    long listedAtMillis;
    Set<String> present = Set.of();
    final Set<String> linked = new HashSet<>();
    /** Whether some link may point at a file the user's repository no longer has. */
    boolean mayHaveStale = true;
  }

  public UserObjectLinks(Path userObjects, Path mirror) {
    this.source = userObjects;
    this.mirror = mirror;
  }

  /**
   * Links every object file of the user's that is not linked yet; with {@code mayDrop} (no
   * command of any process in flight), drops the links whose file the user's repository no longer
   * has. A directory whose modification time is unchanged (and was not racily new) is not listed
   * again, so a command costs what changed among the user's objects.
   */
  public synchronized void renew(boolean mayDrop) {
    if (unavailable) {
      return;
    }
    Path objects = mirror.resolve("objects");
    try {
      if (dirs == null) {
        dirs = new HashMap<>();
        for (String name : objectDirectories(objects)) {
          Dir dir = new Dir();
          dir.linked.addAll(files(objects.resolve(name), name.equals("pack")));
          dirs.put(name, dir);
        }
      }
      Set<String> seen = new HashSet<>();
      for (String name : objectDirectories(source)) {
        seen.add(name);
        Dir dir = dirs.computeIfAbsent(name, n -> new Dir());
        Path from = source.resolve(name);
        FileTime modified;
        try {
          modified = Files.getLastModifiedTime(from, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException gone) {
          continue;
        }
        if (dir.modified != null && modified.equals(dir.modified) && modified.toMillis() < dir.listedAtMillis - FileStat.RACY_MILLIS) {
          continue; // nothing added or removed since it was listed
        }
        dir.listedAtMillis = System.currentTimeMillis();
        dir.present = files(from, name.equals("pack"));
        dir.modified = modified;
        dir.mayHaveStale = true;
        for (String file : dir.present) {
          if (dir.linked.contains(file)) {
            continue;
          }
          Path link = objects.resolve(name).resolve(file);
          Files.createDirectories(link.getParent());
          try {
            Files.createLink(link, from.resolve(file));
          } catch (FileAlreadyExistsException another) {
            // linked by another Waymark on the project
          } catch (NoSuchFileException gone) {
            continue; // pruned since the listing
          }
          dir.linked.add(file);
        }
      }
      for (var entry : dirs.entrySet()) {
        if (!seen.contains(entry.getKey())) {
          entry.getValue().present = Set.of();
          entry.getValue().modified = null;
          entry.getValue().mayHaveStale = true;
        }
      }
      if (mayDrop) {
        drop(objects);
      }
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      unavailable = true;
      LOG.info("cannot link the objects of {} into {} ({}); a command that deletes them can take away the earlier "
          + "content of the files it changes", source, mirror, e.toString());
    }
  }

  private void drop(Path objects) throws IOException {
    for (var it = dirs.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      Dir dir = entry.getValue();
      if (!dir.mayHaveStale) {
        continue;
      }
      for (var links = dir.linked.iterator(); links.hasNext(); ) {
        String file = links.next();
        if (!dir.present.contains(file)) {
          Files.deleteIfExists(objects.resolve(entry.getKey()).resolve(file));
          links.remove();
        }
      }
      dir.mayHaveStale = false;
      if (dir.linked.isEmpty() && dir.modified == null) {
        it.remove();
      }
    }
  }

  /** A blob from the links, as {@link UserGitRepository#readBlob} reads it; empty when it is not there. */
  public synchronized Optional<byte[]> readBlob(ObjectId blob, long expectedSize, BooleanSupplier crlfMayBeGone) {
    if (dirs == null || dirs.isEmpty()) {
      return Optional.empty();
    }
    // opened for each read: it is the rare case, and the links change between commands
    try (FileRepository links = new FileRepository(mirror.toFile())) {
      return UserObjects.readBlob(links, blob, expectedSize, crlfMayBeGone);
    } catch (IOException | RuntimeException e) {
      LOG.info("cannot read blob {} from {}: {}", blob.name(), mirror, e.toString());
      return Optional.empty();
    }
  }

  /** The object directories under {@code objects}: {@code pack} and the loose ones. */
  private static List<String> objectDirectories(Path objects) throws IOException {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> top = Files.newDirectoryStream(objects)) {
      for (Path dir : top) {
        String name = dir.getFileName().toString();
        if ((name.equals("pack") || LOOSE_DIRECTORY.matcher(name).matches()) && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
          names.add(name);
        }
      }
    } catch (NoSuchFileException none) {
      // no repository (any more)
    }
    return names;
  }

  /** The object files in one such directory: packs with their indexes, or loose objects. */
  private static Set<String> files(Path dir, boolean pack) throws IOException {
    Set<String> files = new HashSet<>();
    try (DirectoryStream<Path> inside = Files.newDirectoryStream(dir)) {
      for (Path file : inside) {
        String name = file.getFileName().toString();
        if (pack ? name.endsWith(".pack") || name.endsWith(".idx") : name.length() == 38) {
          files.add(name);
        }
      }
    } catch (NoSuchFileException gone) {
      // emptied and removed since the listing
    }
    return files;
  }
}
