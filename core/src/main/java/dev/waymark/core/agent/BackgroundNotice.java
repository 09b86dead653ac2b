package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.wording.Wording;

/**
 * A tab's notice of its commands' background processes: what they wrote reaches the project as
 * they end, not at the next prompt, and the user is told what it was.
 */
final class BackgroundNotice {
  private final TabParts parts;
  private final CheckpointTree tree;

  BackgroundNotice(TabParts parts) {
    this.parts = parts;
    this.tree = parts.tree();
  }

  /** Settles each end of a background process on the tab's queue, until the tab closes. */
  void watch() {
    tree.onBackgroundEnded(() -> {
      if (!parts.state().closing) {
        parts.queue().later("BackgroundEnded", this::settleBackground);
      }
    });
  }

  /** Applies and records what the tab's commands' background processes wrote, now that they ended, and says so. */
  private void settleBackground() {
    WorkTreeChanges settled = tree.settleBackground();
    if (settled.isEmpty()) {
      return;
    }
    emit(new Event.Warning(Wording.backgroundEnded(settled, tree.filesAt())));
  }

  private void emit(Event event) {
    parts.emit(event);
  }
}
