package dev.waymark.core.checkpoint.store;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.File;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The modes of the project's directories that a new directory would not get (a private
 * {@code 0700} one, say), as shell commands' scans last saw them, kept in the store. Checkpoints
 * record files, not directories: a restore that must make a directory again (undoing
 * {@code rm -rf private/}) gives it the mode noted here, so that what was private does not come
 * back readable by everyone. A directory with the usual mode is not noted, so the file stays small.
 */
public final class DirectoryModes {
  private static final Logger LOG = LoggerFactory.getLogger(DirectoryModes.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private Map<String, Integer> modes; // read on first use
  private boolean changed;

  public DirectoryModes(Path file) {
    this.file = file;
  }

  /** The mode noted for the project-relative directory {@code path}, or {@link FileVersion#NO_MODE}. */
  synchronized int modeOf(String path) {
    return modes().getOrDefault(path, FileVersion.NO_MODE);
  }

  /** Notes what a scan saw of the directory {@code path}: its mode if unusual, else nothing. */
  public synchronized void saw(String path, FileStat stat) {
    int usual = FileModes.newDirectoryMode();
    if (usual == FileVersion.NO_MODE || stat.mode() == 0) {
      return;
    }
    int mode = stat.mode() & 07777;
    if (mode == usual) {
      changed |= modes().remove(path) != null;
    } else {
      changed |= !Integer.valueOf(mode).equals(modes().put(path, mode));
    }
  }

  /** Writes what changed since the last save; a failure is logged (a restore then makes directories as before). */
  public synchronized void save() {
    if (!changed) {
      return;
    }
    try {
      WaymarkHome.replacePrivate(file, JSON.writeValueAsBytes(modes));
      changed = false;
    } catch (IOException e) {
      LOG.warn("could not save {}: {}", file, e.toString());
    }
  }

  /**
   * Makes the directory {@code dir} (below {@code root}) and any missing above it, each with the
   * mode noted for it, if any.
   */
  public void makeDirectories(Path root, Path dir) throws IOException {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || dir.equals(root) || !dir.startsWith(root)) {
      return;
    }
    makeDirectories(root, dir.getParent());
    try {
      Files.createDirectory(dir);
    } catch (FileAlreadyExistsException raced) {
      return; // made meanwhile (or a file is there, which the write reports)
    }
    int mode = modeOf(root.relativize(dir).toString().replace(File.separatorChar, '/'));
    if (mode != FileVersion.NO_MODE) {
      FileModes.set(dir, mode & 0777);
    }
  }

  private Map<String, Integer> modes() {
    if (modes == null) {
      modes = new TreeMap<>();
      try {
        modes.putAll(JSON.readValue(Files.readAllBytes(file), new TypeReference<Map<String, Integer>>() {}));
      } catch (NoSuchFileException none) {
        // no unusual directory seen yet
      } catch (IOException | RuntimeException e) {
        LOG.warn("ignoring a damaged {}: {}", file, e.toString());
      }
    }
    return modes;
  }
}
