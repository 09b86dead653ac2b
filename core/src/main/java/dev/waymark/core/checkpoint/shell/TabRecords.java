package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.util.List;
import java.util.Map;

/**
 * One open checkpoint of a tab, as shell capture records into it: all it needs of the tab's turn,
 * so that capture never sees the tab's tree or the store that holds it.
 */
public interface TabRecords {
  String tabId();

  /** The checkpoint's number. */
  int number();

  /**
   * Stores {@code contents} in the project's shadow repository and returns their versions, in
   * order: how a {@link CommandCapture} that did not read them through the store keeps what a
   * command wrote, and what the paths held before, so that the changes it records name them.
   */
  List<FileVersion> store(List<FileState> contents);

  /**
   * Records changes whose versions (before and after) are all in the shadow repository already;
   * returns, by path, why one was refused (the others are recorded).
   */
  Map<String, String> recordStoredChanges(List<FileChange> changes);

  /** Keeps what is recorded so far under the checkpoint's tag, so that a crash loses none of it. */
  void persist();

  /** The tab the checkpoint belongs to. */
  TabHistory history();

  /** Every change the checkpoint holds so far. */
  List<FileChange> changes();

  /**
   * Keeps a command's versions of paths it could not apply (path → version, blobs stored;
   * {@code FileVersion.ABSENT}: it deleted the path) under a new {@code rescued} tag of the tab;
   * returns the tag.
   */
  String rescueCommandVersions(Map<String, FileVersion> versions);
}
