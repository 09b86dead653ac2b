package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.shell.Scan.Excluded;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Finds files that a command did not create but moved out of a left-out place ({@code mv data
 * data-old} with {@code data/} ignored, {@code mv .env env.txt}): the entry, or a directory
 * above it, has the inode of a left-out entry that is gone since (a directory that held some entry
 * then). No checkpoint holds their content, so they must not be recorded as new files, which an
 * undo would delete.
 */
final class MovedOutOfExclusion {
  private final PathTable<Excluded> before;
  private final PathTable<Excluded> after;
  private final PathTable<FileStat> directories;
  private Map<Long, String> goneByInode;

  MovedOutOfExclusion(PathTable<Excluded> before, PathTable<Excluded> after, PathTable<FileStat> directories) {
    this.before = before;
    this.after = after;
    this.directories = directories;
  }

  /** Where {@code path} (new, with {@code stat}) came from, described for the user, if it was left out before. */
  Optional<String> source(String path, FileStat stat) {
    Map<Long, String> gone = gone();
    if (gone.isEmpty()) {
      return Optional.empty();
    }
    String from = gone.get(stat.inode());
    if (from != null && !before.get(from).stat().directory()) {
      return Optional.of(describe(from));
    }
    for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
      FileStat dir = directories.get(path.substring(0, slash));
      String was = dir == null ? null : gone.get(dir.inode());
      // A left-out directory that held nothing before: what is below it now, the command put there, and
      // an undo may take it away. One that held something: its files are not told apart from the ones
      // the command added or rewrote in it (its content was never read, and a change time says a file
      // was written, not that it is new), so none is recorded, which may leave the command's files
      // after an undo but never deletes the user's.
      if (was != null && before.get(was).stat().directory() && !before.get(was).empty()) {
        return Optional.of(describe(was));
      }
    }
    return Optional.empty();
  }

  private String describe(String path) {
    Excluded was = before.get(path);
    return path + (was.stat().directory() ? "/" : "") + ", which was " + was.why().described();
  }

  private Map<Long, String> gone() {
    if (goneByInode == null) {
      goneByInode = new HashMap<>();
      before.forEach((path, was) -> {
        Excluded now = after.get(path);
        if (was.stat().inode() != 0 && (now == null || now.stat().inode() != was.stat().inode())) {
          goneByInode.put(was.stat().inode(), path);
        }
      });
    }
    return goneByInode;
  }
}
