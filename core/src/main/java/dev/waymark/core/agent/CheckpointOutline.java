package dev.waymark.core.agent;

import dev.waymark.core.protocol.CheckpointSummary;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A tab's checkpoints laid out as a tree, the one layout every list uses (the interface's
 * {@code /checkpoint}, the headless {@code checkpoints list} and its JSON): the child on the way
 * to live (else the first) continues its parent's column; every other child starts a branch one
 * column further in, right under the checkpoint it left, with its own children under it.
 */
public final class CheckpointOutline {
  private CheckpointOutline() {}

  /** Where a checkpoint stands: live, before it on the live path, undone (redo and goto reach it), or abandoned by a branch. */
  public enum State { LIVE, ON_PATH, UNDONE, ABANDONED }

  /** One row: its checkpoint, how far in, whether it starts a branch (from its parent), and its state. */
  public record Row(CheckpointSummary checkpoint, int depth, boolean startsBranch, State state) {}

  public static List<Row> rows(List<CheckpointSummary> all, int live) {
    Map<Integer, CheckpointSummary> byNumber = new HashMap<>();
    Map<Integer, List<CheckpointSummary>> children = new HashMap<>();
    all.forEach(c -> byNumber.put(c.number(), c));
    List<CheckpointSummary> roots = new ArrayList<>();
    for (CheckpointSummary c : all) {
      if (c.parent().isPresent() && byNumber.containsKey(c.parent().getAsInt())) {
        children.computeIfAbsent(c.parent().getAsInt(), p -> new ArrayList<>()).add(c);
      } else {
        roots.add(c);
      }
    }
    Set<Integer> towardLive = new HashSet<>();
    for (CheckpointSummary at = byNumber.get(live); at != null && towardLive.add(at.number());
        at = at.parent().isPresent() ? byNumber.get(at.parent().getAsInt()) : null) {
      // the live path, and the way to it from #0
    }
    for (List<CheckpointSummary> kids : children.values()) {
      // the child toward live continues the column; the others, oldest first, branch off
      kids.sort(Comparator.comparing((CheckpointSummary c) -> !towardLive.contains(c.number()))
          .thenComparingInt(CheckpointSummary::number));
    }
    roots.sort(Comparator.comparingInt(CheckpointSummary::number));
    List<Row> rows = new ArrayList<>();
    record Place(CheckpointSummary checkpoint, int depth, boolean startsBranch) {}
    for (CheckpointSummary root : roots) {
      Deque<Place> stack = new ArrayDeque<>(); // a stack, not recursion: histories run long
      stack.push(new Place(root, 0, false));
      while (!stack.isEmpty()) {
        Place at = stack.pop();
        CheckpointSummary c = at.checkpoint();
        rows.add(new Row(c, at.depth(), at.startsBranch(), state(c, live, towardLive, byNumber)));
        List<CheckpointSummary> kids = children.getOrDefault(c.number(), List.of());
        if (!kids.isEmpty()) {
          stack.push(new Place(kids.get(0), at.depth(), false)); // popped after the branches below
        }
        for (int i = kids.size() - 1; i >= 1; i--) {
          stack.push(new Place(kids.get(i), at.depth() + 1, true));
        }
      }
    }
    return rows;
  }

  private static State state(CheckpointSummary c, int live, Set<Integer> towardLive,
      Map<Integer, CheckpointSummary> byNumber) {
    if (c.number() == live) {
      return State.LIVE;
    }
    if (towardLive.contains(c.number())) {
      return State.ON_PATH;
    }
    for (CheckpointSummary at = parentOf(c, byNumber); at != null; at = parentOf(at, byNumber)) {
      if (at.number() == live) {
        return State.UNDONE;
      }
    }
    return State.ABANDONED;
  }

  private static CheckpointSummary parentOf(CheckpointSummary c, Map<Integer, CheckpointSummary> byNumber) {
    return c.parent().isPresent() ? byNumber.get(c.parent().getAsInt()) : null;
  }
}
