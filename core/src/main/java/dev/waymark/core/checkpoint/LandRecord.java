package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.FileVersion;
import java.util.List;
import java.util.Optional;

/**
 * What a land's checkpoint records of the tab it came from, as values: that the tab was isolated,
 * whether the land kept it so, and its view as it was (each path's version in the view and its
 * base). Undo of the land puts the view back from it; redo lands again.
 *
 * @param keptIsolated the land left the tab isolated, its view empty over the landed project
 * @param view the view's paths before the land (directories not counted)
 */
record LandRecord(boolean keptIsolated, List<ViewEntry> view) {
  LandRecord {
    view = List.copyOf(view);
  }

  /**
   * One path of the view: {@code inView} its version there ({@link FileVersion#ABSENT}: deleted in the
   * view), {@code base} what the project held when the view first changed it (absent: not known).
   */
  record ViewEntry(String path, FileVersion inView, Optional<FileVersion> base) {}
}
