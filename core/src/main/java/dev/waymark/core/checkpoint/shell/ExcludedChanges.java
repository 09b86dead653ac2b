package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.shell.Scan.Excluded;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What changed among the entries a walk leaves out (ignored, too deep, a name not UTF-8): told to
 * the user as skipped, never recorded. Apart from {@link Scanner}, which compares only the
 * recorded files.
 */
final class ExcludedChanges {
  private ExcludedChanges() {}

  /** The left-out entries that differ between two walks, each with why it is not recorded. */
  static List<WorkTreeChanges.Skipped> between(PathTable<Excluded> before, PathTable<Excluded> after) {
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    // after a watch, only what it touched can differ: not a walk over every ignored entry
    TreeSet<String> excluded = after.pathsDifferingFrom(before).map(TreeSet::new).orElseGet(() -> {
      TreeSet<String> all = new TreeSet<>(before.keySet());
      all.addAll(after.keySet());
      return all;
    });
    for (String path : excluded) {
      if (path.equals(".git") || path.endsWith("/.git")) {
        continue; // git's own bookkeeping: never interesting, never undone
      }
      Excluded was = before.get(path);
      Excluded now = after.get(path);
      if (was == null && now == null || was != null && now != null && sameEntry(was.stat(), now.stat())) {
        continue;
      }
      Excluded any = now != null ? now : was;
      boolean dir = any.stat().directory();
      if (any.why() == Exclusion.NOT_UTF8) {
        skipped.add(new WorkTreeChanges.Skipped(path, "its name is not UTF-8, which Waymark cannot read, record or "
            + "restore; not recorded"));
        continue;
      }
      String why = any.why().described();
      skipped.add(new WorkTreeChanges.Skipped(dir ? path + "/" : path, dir
          ? why + "; what changed inside it is not recorded"
          : why + "; not recorded"));
    }
    return skipped;
  }

  /** A directory's own stat changes when entries are added, removed or renamed in it; its size is noise. */
  private static boolean sameEntry(FileStat a, FileStat b) {
    if (a.directory() != b.directory()) {
      return false;
    }
    return a.directory()
        ? a.mtimeNanos() == b.mtimeNanos() && a.inode() == b.inode()
        : a.equals(b);
  }
}
