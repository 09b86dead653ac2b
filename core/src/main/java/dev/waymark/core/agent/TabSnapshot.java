package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.TreeSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a tab looks like at one moment, for readers on any thread (a front end, the session
 * saver): taken by whoever holds the tab's tree when it changes, so reading it never waits on the
 * tree's git writes or garbage collection.
 *
 * @param tree the checkpoints and where live, the files and redo stand
 * @param livePath the live path, {@code #0} first
 * @param view where the view cursor stands
 * @param forward where browsing forward goes from each checkpoint ({@link CheckpointTree#forwardLinks()})
 */
public record TabSnapshot(TreeSnapshot tree, List<Integer> livePath, CheckpointTree.ViewPosition view,
    Map<Integer, Integer> forward) {
  public TabSnapshot {
    livePath = List.copyOf(livePath);
    forward = Map.copyOf(forward);
  }

  static TabSnapshot of(CheckpointTree tree, CheckpointTree.ViewPosition view) {
    return new TabSnapshot(tree.snapshot(), tree.livePath(), view, tree.forwardLinks());
  }

  TabSnapshot withView(CheckpointTree.ViewPosition moved) {
    return new TabSnapshot(tree, livePath, moved, forward);
  }

  public int live() {
    return tree.live();
  }

  public Optional<Checkpoint> checkpoint(int number) {
    return tree.checkpoints().stream().filter(c -> c.number() == number).findFirst();
  }
}
