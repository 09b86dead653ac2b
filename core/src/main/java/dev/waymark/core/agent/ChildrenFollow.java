package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.protocol.ChildRestore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The two halves of "a parent's checkpoint and its children move as one". In the parent: after
 * its own restore, the checkpoints it left and came to name the child tabs to move, and each moves
 * before the parent's result is told. In a child: where the parent's move takes it, back before its
 * subagent's first checkpoint or to where it stood when it was taken back, with the user's own turns
 * in it.
 */
final class ChildrenFollow {
  private ChildrenFollow() {}

  /** Moves the children of the checkpoints {@code result} left and came to; what each did, in order. */
  static List<ChildRestore> after(CheckpointTree tree, RestoreResult result, boolean force, ChildTabs children) {
    if (!result.applied()) {
      return List.of();
    }
    Map<Integer, Checkpoint> byNumber = tree.checkpoints().stream()
        .collect(Collectors.toMap(Checkpoint::number, Function.identity()));
    List<Integer> before = pathTo(byNumber, result.from());
    Set<Integer> now = new HashSet<>(result.livePath());
    List<Integer> left = new ArrayList<>(before.stream().filter(n -> !now.contains(n)).toList());
    Collections.reverse(left); // the latest first: an older turn's child goes back last, to the earliest point
    Set<Integer> was = new HashSet<>(before);
    List<ChildTabs.Move> moves = new ArrayList<>();
    for (int n : left) {
      linksOf(byNumber, n, tree.tabId()).forEach(link -> moves.add(new ChildTabs.Move(link, true)));
    }
    for (int n : result.livePath()) {
      if (!was.contains(n)) {
        linksOf(byNumber, n, tree.tabId()).forEach(link -> moves.add(new ChildTabs.Move(link, false)));
      }
    }
    return moves.isEmpty() ? List.of() : children.move(moves, force);
  }

  private static List<ChildLink> linksOf(Map<Integer, Checkpoint> byNumber, int n, String self) {
    Checkpoint c = byNumber.get(n);
    return c == null ? List.of() : c.children().stream().filter(link -> !link.tab().equals(self)).toList(); // never itself
  }

  /** Where a child goes for its parent's move, and which of the checkpoints crossed are not its subagent's. */
  record Target(int checkpoint, List<Integer> ownTurns) {}

  /**
   * Where {@code tree} (a child's, as it stands) goes: back, to before {@code link}'s first checkpoint;
   * forward, to where it stood when it was taken back (the deepest checkpoint redo would bring back,
   * when the way there passes the subagent's last), else to the subagent's last. Empty when it
   * stands there already.
   */
  static Optional<Target> target(TreeSnapshot tree, List<Integer> livePath, ChildLink link, boolean back) {
    Map<Integer, Checkpoint> byNumber = tree.checkpoints().stream()
        .collect(Collectors.toMap(Checkpoint::number, Function.identity()));
    if (!byNumber.containsKey(link.first()) || !byNumber.containsKey(link.last())) {
      return Optional.empty();
    }
    if (back) {
      int at = livePath.indexOf(link.first());
      if (at < 0) {
        return Optional.empty(); // taken back in its own tab already
      }
      return Optional.of(new Target(byNumber.get(link.first()).parent(), own(livePath.subList(at, livePath.size()), link)));
    }
    if (livePath.contains(link.last())) {
      return Optional.empty();
    }
    int target = link.last();
    if (!tree.redo().isEmpty()) {
      int deepest = tree.redo().get(tree.redo().size() - 1);
      if (pathTo(byNumber, deepest).contains(link.last())) {
        target = deepest;
      }
    }
    List<Integer> path = pathTo(byNumber, target);
    return Optional.of(new Target(target, own(path.subList(path.indexOf(link.first()) + 1, path.size()), link)));
  }

  private static List<Integer> own(List<Integer> crossed, ChildLink link) {
    return crossed.stream().filter(n -> n < link.first() || n > link.last()).toList();
  }

  private static List<Integer> pathTo(Map<Integer, Checkpoint> byNumber, int n) {
    LinkedList<Integer> path = new LinkedList<>();
    for (Checkpoint at = byNumber.get(n); at != null; at = byNumber.get(at.parent())) {
      path.addFirst(at.number());
    }
    return path;
  }
}
