package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.protocol.Event;
import java.util.ArrayList;
import java.util.List;

/**
 * A tab's notice of its commands' background processes: what they wrote reaches the project as
 * they end, not at the next prompt, and the user is told what it was.
 */
final class BackgroundNotice {
  private static final int BACKGROUND_SHOWN = 5;

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
    List<String> said = new ArrayList<>();
    for (var change : settled.recorded()) {
      said.add((!change.before().exists() ? "created " : !change.after().exists() ? "deleted " : "modified ")
          + change.path());
    }
    for (var skipped : settled.skipped()) {
      said.add(skipped.path() + " (" + skipped.reason() + ")");
    }
    int shown = Math.min(said.size(), BACKGROUND_SHOWN);
    emit(new Event.Warning("Background processes of a shell command ended; what they wrote is applied"
        + (settled.recorded().isEmpty() ? "" : " and recorded in #" + tree.filesAt()) + ": "
        + String.join(", ", said.subList(0, shown))
        + (said.size() > shown ? " and " + (said.size() - shown) + " more" : "") + "."));
  }

  private void emit(Event event) {
    parts.emit(event);
  }
}
