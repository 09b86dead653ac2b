package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointException;
import dev.waymark.core.checkpoint.CheckpointTree.ViewPosition;
import dev.waymark.core.protocol.Command.View;
import java.util.List;

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
   * One step toward live: along the live path, or, off it, toward the newest checkpoint below
   * (the way most recently taken from there); live when nothing is below.
   */
  private static int next(TabSnapshot tab, int from) {
    List<Integer> path = tab.livePath();
    int index = path.indexOf(from);
    if (index >= 0) {
      return index + 1 < path.size() ? path.get(index + 1) : tab.live();
    }
    java.util.Map<Integer, Integer> parents = new java.util.HashMap<>();
    tab.tree().checkpoints().forEach(c -> parents.put(c.number(), c.parent()));
    int newest = -1;
    int step = -1;
    for (int n : parents.keySet()) {
      for (int child = n, p = parents.get(n); p >= 0; child = p, p = parents.getOrDefault(p, -1)) {
        if (p == from) {
          if (n > newest) {
            newest = n;
            step = child;
          }
          break;
        }
      }
    }
    return newest < 0 ? tab.live() : step;
  }

  private static Checkpoint existing(TabSnapshot tab, int number) {
    int last = tab.tree().checkpoints().stream().mapToInt(Checkpoint::number).max().orElse(0);
    if (number < 0 || number > last) {
      throw new CheckpointException("This tab has no checkpoint #" + number + " (it has #0 to #" + last + ").");
    }
    return tab.checkpoint(number).orElseThrow(() -> new CheckpointException("Checkpoint #" + number
        + " of this tab changed no files and was not brought back from the store."));
  }
}
