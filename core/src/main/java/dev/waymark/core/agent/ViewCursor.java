package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree.ViewPosition;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.Command.View;

/**
 * Moves the read-only view cursor over a {@link TabSnapshot}: browsing reads a picture of the tree,
 * never the tree itself, so it is answered at once even while a turn writes to the store.
 */
final class ViewCursor {
  private ViewCursor() {}

  static ViewPosition live(TabSnapshot tab) {
    return new ViewPosition(tab.live(), true);
  }

  /** Where {@code view} takes the cursor; an unknown checkpoint is a {@link CheckpointException}. */
  static ViewPosition move(TabSnapshot tab, View view) {
    ViewPosition at = tab.view();
    return switch (view.direction()) {
      case LIVE -> live(tab);
      case AT -> at(tab, existing(tab, view.checkpoint().orElseThrow()).number());
      case BACK -> {
        Checkpoint from = existing(tab, at.checkpoint());
        yield from.parent() < 0 ? at : at(tab, from.parent());
      }
      case FORWARD -> at.live() ? at : at(tab, next(tab, at.checkpoint()));
    };
  }

  private static ViewPosition at(TabSnapshot tab, int number) {
    return number == tab.live() ? live(tab) : new ViewPosition(number, false);
  }

  /**
   * The one rule for "forward": the child on the way to where live most recently was (the tree's
   * {@link dev.waymark.core.checkpoint.CheckpointTree#forwardLinks()}), so along the live path
   * toward live, and off it along the way last taken; live when nothing was taken from there.
   */
  static int next(TabSnapshot tab, int from) {
    Integer next = tab.forward().get(from);
    return next == null ? tab.live() : next;
  }

  private static Checkpoint existing(TabSnapshot tab, int number) {
    int last = tab.tree().checkpoints().stream().mapToInt(Checkpoint::number).max().orElse(0);
    if (number < 0 || number > last) {
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "This tab has no checkpoint #" + number + " (it has #0 to #" + last + ").");
    }
    return tab.checkpoint(number).orElseThrow(() -> new CheckpointException(CheckpointException.Kind.LOST, "Checkpoint #" + number
        + " of this tab changed no files and was not brought back from the store."));
  }
}
