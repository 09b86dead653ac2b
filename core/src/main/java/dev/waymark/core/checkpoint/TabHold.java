package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.TabHistory;
import java.util.Optional;

/**
 * Whether one tab's {@link CheckpointTree} may act on its tab: it holds its store's lock on the tab
 * (it was opened to act on it, not only to read), has not given it up, and runs no turn. Apart
 * from the facade so that every command is refused the same way, with the same words.
 */
final class TabHold {
  private final String tabId;
  /** This tree holds its store's lock on the tab (it was opened to act on it, not only to read). */
  private boolean holdsTab;
  private boolean released;

  TabHold(String tabId) {
    this.tabId = tabId;
  }

  void take() {
    holdsTab = true;
  }

  /** See {@link CheckpointTree#release}; {@code parts} and {@code recorder} are the tree's as they are now. */
  void release(StoreParts parts, TurnRecorder recorder, TabHistory history) {
    Optional<Node> running = recorder.running();
    if (running.isPresent()) {
      throw new CheckpointException(CheckpointException.Kind.BUSY, "Checkpoint #" + running.get().number + " is still running; tab " + tabId
          + " stays held until it ends.");
    }
    if (holdsTab && !released) {
      parts.captures().stopBackground(history); // what its commands left running stops with it
      parts.tabLocks().release(tabId);
    }
    released = true;
  }

  /** Refuses {@code what} once the tab was given up, or while a turn runs. */
  void requireNoTurn(TurnRecorder recorder, String what) {
    if (released) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Tab " + tabId + " was closed; open it again to " + what + ".");
    }
    Optional<Node> running = recorder.running();
    if (running.isPresent()) {
      throw new CheckpointException(CheckpointException.Kind.BUSY, "Checkpoint #" + running.get().number + " is still running; finish or cancel it before you " + what + ".");
    }
  }
}
