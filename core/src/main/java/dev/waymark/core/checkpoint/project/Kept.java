package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileStat;
import java.util.NavigableSet;
import java.util.function.Supplier;

/**
 * Entries that are walked even where a rule would leave them out: what the user's git tracks
 * (git itself never ignores a tracked file) and files the store already knows unchanged, so
 * that an ignore rule written since (by the agent, say) cannot hide their deletion.
 */
public interface Kept {
  public Kept NONE = new Kept() {
    @Override
    public boolean file(String path, FileStat stat) {
      return false;
    }

    @Override
    public boolean below(String dir) {
      return false;
    }
  };

  /** Whether the file at {@code path}, as {@code stat}, is walked whatever the rules say. */
  boolean file(String path, FileStat stat);

  /** Whether the directory {@code dir} holds something walked whatever the rules say: then it is entered. */
  boolean below(String dir);

  /** What git tracks: {@code paths}, sorted, asked for only when a rule leaves something out. */
  static Kept tracked(Supplier<NavigableSet<String>> paths) {
    return new Kept() {
      @Override
      public boolean file(String path, FileStat stat) {
        return paths.get().contains(path);
      }

      @Override
      public boolean below(String dir) {
        return holdsBelow(paths.get(), dir);
      }
    };
  }

  /** Whether the sorted {@code paths} hold one below the directory {@code dir}. */
  static boolean holdsBelow(NavigableSet<String> paths, String dir) {
    String inside = dir + "/";
    String next = paths.ceiling(inside);
    return next != null && next.startsWith(inside);
  }
}
