package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One checkpoint of some tab, read from a snapshot of that tab's tree: a side of a comparison or
 * the end of an export. Snapshots are immutable, so another tab's checkpoints are read without
 * waiting for that tab's thread.
 */
public record CheckpointAt(TreeSnapshot tree, int number) {
  public CheckpointAt {
    int wanted = number;
    if (tree.checkpoints().stream().noneMatch(c -> c.number() == wanted)) {
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "Tab " + tree.tabId() + " has no checkpoint #" + number + ".");
    }
  }

  public String tabId() {
    return tree.tabId();
  }

  Checkpoint checkpoint() {
    return byNumber().get(number);
  }

  Map<Integer, Checkpoint> byNumber() {
    Map<Integer, Checkpoint> all = new HashMap<>();
    tree.checkpoints().forEach(c -> all.put(c.number(), c));
    return all;
  }

  /**
   * What this checkpoint holds for every path its tab ever changed: the latest "after" on its way
   * from {@code #0}, else the "before" of the earliest checkpoint that changed the path (as it was
   * before the tab), as a restore would write it. Paths the tab never changed are not known here.
   */
  Map<String, FileVersion> versions() {
    Map<Integer, Checkpoint> all = byNumber();
    Map<String, FileVersion> state = new TreeMap<>();
    for (Checkpoint c = all.get(number); c != null; c = all.get(c.parent())) {
      for (FileChange change : c.changes()) {
        state.putIfAbsent(change.path(), change.after());
      }
    }
    tree.checkpoints().stream().sorted(Comparator.comparingInt(Checkpoint::number))
        .forEach(c -> c.changes().forEach(change -> state.putIfAbsent(change.path(), change.before())));
    return state;
  }
}
