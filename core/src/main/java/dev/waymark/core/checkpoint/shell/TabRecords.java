package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileChange;
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
   * Records changes whose versions (before and after) are all in the shadow repository already;
   * returns, by path, why one was refused (the others are recorded).
   */
  Map<String, String> recordStoredChanges(List<FileChange> changes);

  /** Keeps what is recorded so far under the checkpoint's tag, so that a crash loses none of it. */
  void persist();

  /** The tab the checkpoint belongs to. */
  TabHistory history();
}
