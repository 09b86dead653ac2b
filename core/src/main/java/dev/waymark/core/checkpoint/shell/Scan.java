package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One scan of the tree: what it knows of each eligible file, and the tree it saw. {@code complete}
 * is false for a baseline rebuilt from the stat cache, which lacks the files it did not keep (too
 * big, unreadable): a file missing from it counts as created only if its change time is after
 * the start. {@code unsettled} names the files whose content it does not know.
 */
public record Scan(long startMillis, long maxFileSize, PathTable<Seen> files, Tree tree, boolean complete,
    Set<String> unsettled) {
  PathTable<Excluded> excluded() {
    return tree.excluded();
  }

  IgnoreRules rules() {
    return tree.rules();
  }

  /** Whether a file is over the size limit for undoable files (a link's size is its target's name). */
  static boolean tooBig(FileStat stat, long maxFileSize) {
    return stat.kind() != FileKind.SYMLINK && stat.size() > maxFileSize;
  }

  /** What a scan saw of one file: its stat, and its content or, when that is not kept, why. */
  record Seen(FileStat stat, FileVersion version, StatCache.Source source, String unstored) {}

  /**
   * A left-out entry: its own stat, and whether it is a directory that held no entry at all when
   * seen ({@code empty}): what a command moves out of it then can only be what the command put in.
   */
  record Excluded(FileStat stat, Exclusion why, boolean empty) {}

  /**
   * The entries a walk found: tracked files, left-out entries, the directories gone into, the
   * ignore rules it used, and the watch's sequence number it is up to date with, if any.
   * {@code changed} names the files that may differ from the tree it was brought up to date from
   * (null after a whole walk: any may).
   */
  record Tree(PathTable<FileStat> files, PathTable<Excluded> excluded, PathTable<FileStat> directories,
      IgnoreRules rules, OptionalLong mark, Set<String> changed, boolean ignoreFileTouched) {
    static Tree unwalked(IgnoreRules rules) {
      return new Tree(PathTable.empty(), PathTable.empty(), PathTable.empty(), rules, OptionalLong.empty(), null, false);
    }

    /** Whether only {@link #changed} was looked at again. */
    boolean derived() {
      return changed != null;
    }
  }
}
