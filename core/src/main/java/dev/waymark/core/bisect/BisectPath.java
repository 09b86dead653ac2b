package dev.waymark.core.bisect;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.TreeSnapshot;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The checkpoints a bisect walks: from the good one down to the bad one, which must descend from
 * it. By default the bad one is the live checkpoint and the good one the start of its path ({@code #0}).
 */
record BisectPath(List<Integer> numbers) {
  BisectPath {
    numbers = List.copyOf(numbers);
  }

  int good() {
    return numbers.get(0);
  }

  int bad() {
    return numbers.get(numbers.size() - 1);
  }

  /** The path, or why there is none (an {@link IllegalArgumentException} whose message the user reads). */
  static BisectPath of(TreeSnapshot tree, OptionalInt good, OptionalInt bad) {
    Map<Integer, Checkpoint> byNumber = new HashMap<>();
    tree.checkpoints().forEach(c -> byNumber.put(c.number(), c));
    int to = bad.orElse(tree.live());
    List<Integer> fromRoot = toRoot(byNumber, to, "--bad");
    Collections.reverse(fromRoot);
    int from = good.orElse(fromRoot.get(0));
    List<Integer> other = toRoot(byNumber, from, "--good");
    if (from == to) {
      throw new IllegalArgumentException("The good and the bad checkpoint are both #" + to + ": there is nothing between "
          + "them to test.");
    }
    int at = fromRoot.indexOf(from);
    if (at < 0) {
      if (other.contains(to)) {
        throw new IllegalArgumentException("The good checkpoint #" + from + " comes after the bad one #" + to
            + " (it descends from it): bisect looks from an earlier good one to a later bad one; swap them: --good " + to
            + " --bad " + from + ".");
      }
      throw new IllegalArgumentException("#" + from + " and #" + to + " are on different branches: bisect follows one path, "
          + "from a checkpoint to one that descends from it (#" + to + "'s path is " + describe(fromRoot) + ").");
    }
    return new BisectPath(fromRoot.subList(at, fromRoot.size()));
  }

  /** {@code number}, its parent, ... up to the tab's start. */
  private static List<Integer> toRoot(Map<Integer, Checkpoint> byNumber, int number, String option) {
    if (!byNumber.containsKey(number)) {
      throw new IllegalArgumentException("This tab has no checkpoint #" + number + " (" + option + ").");
    }
    List<Integer> path = new ArrayList<>();
    for (Checkpoint c = byNumber.get(number); c != null; c = byNumber.get(c.parent())) {
      path.add(c.number());
    }
    return path;
  }

  static String describe(List<Integer> path) {
    return path.stream().map(n -> "#" + n).collect(Collectors.joining(" → "));
  }
}
