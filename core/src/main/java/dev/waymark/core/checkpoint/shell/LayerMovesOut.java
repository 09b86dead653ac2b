package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.layer.LayerChange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The files a command's layer deletes from a place left out of the records (ignored, or excluded
 * by Waymark) that it moved to a recorded one: {@code mv data data-old} with {@code data/}
 * ignored. A move in a layer is a copy and a deletion (overlayfs copies what it renames), so the
 * new file would be recorded as created and the old one not at all: an undo would delete the
 * only copy of the user's file. Such a deletion is recorded after all, so undo brings it back
 * (a move, as {@link MovedOutOfExclusion} keeps one from being taken for a creation when changes
 * are found by comparison).
 *
 * <p>A deleted left-out file is taken as moved when a recorded file the layer makes or changes has
 * its name (a directory moved whole, even if the command then changed the file) or its content (a
 * file renamed). Taking one for moved that was not only records a deletion an undo restores; the
 * cost is reading the two files, and only deleted left-out files and the layer's new recorded
 * files are looked at.
 */
final class LayerMovesOut {
  /** Whether {@code path}, as {@code stat} shows it, is left out of the records. */
  interface LeftOut {
    boolean test(String path, FileStat stat) throws IOException;
  }

  private LayerMovesOut() {}

  /**
   * The deletions among {@code changes} of left-out files of {@code project} that the layer moved
   * to recorded paths; files over {@code maxSize} bytes are not looked at (neither side would be
   * recorded, so undo touches neither).
   */
  static Set<String> find(Path project, List<LayerChange> changes, long maxSize, LeftOut leftOut) throws IOException {
    Map<String, List<String>> byName = new HashMap<>();
    Map<Long, List<String>> bySize = new HashMap<>();
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.DELETED) {
        continue;
      }
      FileStat stat = FileStat.read(project.resolve(change.path()));
      boolean file = !stat.directory() && (stat.kind() == FileKind.REGULAR || stat.kind() == FileKind.EXECUTABLE);
      if (file && stat.size() <= maxSize && leftOut.test(change.path(), stat)) {
        byName.computeIfAbsent(name(change.path()), n -> new ArrayList<>()).add(change.path());
        bySize.computeIfAbsent(stat.size(), n -> new ArrayList<>()).add(change.path());
      }
    }
    if (byName.isEmpty()) {
      return Set.of(); // nothing left out was deleted: the common case costs nothing more
    }
    Set<String> moved = new HashSet<>();
    // by size, then by content: each deleted file read once, however many new files have its size
    Map<Long, Map<String, List<String>>> byContent = new HashMap<>();
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.FILE) {
        continue;
      }
      FileStat made = FileStat.read(change.source());
      if (made.size() > maxSize || leftOut.test(change.path(), made)) {
        continue; // a move from one left-out place to another: neither is recorded, and undo touches neither
      }
      moved.addAll(byName.getOrDefault(name(change.path()), List.of()));
      List<String> sameSize = bySize.get(made.size());
      if (sameSize != null) {
        Map<String, List<String>> contents = byContent.get(made.size());
        if (contents == null) {
          contents = new HashMap<>();
          for (String deleted : sameSize) {
            contents.computeIfAbsent(digest(project.resolve(deleted)), d -> new ArrayList<>()).add(deleted);
          }
          byContent.put(made.size(), contents);
        }
        moved.addAll(contents.getOrDefault(digest(change.source()), List.of()));
      }
    }
    return moved;
  }

  private static String digest(Path file) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
