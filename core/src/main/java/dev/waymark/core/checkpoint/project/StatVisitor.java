package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileStat;

/** Receives what {@link ProjectWalker#scan} finds. */
public interface StatVisitor {
  void entry(String path, FileStat stat);

  void excluded(String path, FileStat stat, Exclusion why);

  /** A directory the scan went into (not the one it started from). */
  default void directory(String path, FileStat stat) {}

  /** Called, from any thread, when a directory the scan will go into is found, before it is entered. */
  default void found(String dir) {}

  /** Called, from any thread, just before a directory is listed. */
  default void entering(String dir) {}
}
