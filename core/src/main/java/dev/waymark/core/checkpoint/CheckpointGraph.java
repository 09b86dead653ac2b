package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The shape of one tab's checkpoints, in memory only: the nodes and their parents, the live
 * checkpoint (where the conversation continues), the files checkpoint (what the project's files
 * reflect), the redo stack and the view cursor. It moves these as undo, redo, goto and branch
 * say; it never reads or writes a file, a git object or a lock, so it is tested without any.
 *
 * <p>Blob ids appear only as values inside {@link FileVersion}s. Confined to its tree's thread.
 */
final class CheckpointGraph {
  private final List<Node> nodes = new ArrayList<>();
  private final Deque<Node> redo = new ArrayDeque<>();
  private Node live;
  private Node files;
  private Begun begun; // what the last begin moved, while its checkpoint may still be withdrawn

  /** A graph holding only {@code #0}, created at {@code start}. */
  CheckpointGraph(Instant start) {
    Node first = new Node(0, null, CheckpointStatus.DONE, start);
    nodes.add(first);
    live = first;
    files = first;
  }

  // ---------------------------------------------------------------------------------- reading

  Node live() {
    return live;
  }

  Node files() {
    return files;
  }

  boolean exists(int number) {
    return number >= 0 && number < nodes.size() && nodes.get(number) != null;
  }

  /** The node {@code #number}; a clear error when the tab has none. */
  Node node(int number) {
    if (number < 0 || number >= nodes.size()) {
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "This tab has no checkpoint #" + number
          + " (it has #0 to #" + (nodes.size() - 1) + ").");
    }
    Node found = nodes.get(number);
    if (found == null) {
      throw new CheckpointException(CheckpointException.Kind.LOST, "Checkpoint #" + number + " of this tab changed no files and was not brought back "
          + "from the store.");
    }
    return found;
  }

  Node nodeOrStart(int number) {
    return exists(number) ? nodes.get(number) : nodes.get(0);
  }

  /** Every node, by number. */
  List<Node> nodes() {
    return nodes.stream().filter(Objects::nonNull).toList();
  }

  /** The number the next turn gets: numbers are never reused. */
  int nextNumber() {
    return nodes.size();
  }

  List<Checkpoint> checkpoints() {
    List<Checkpoint> all = new ArrayList<>(nodes.size());
    for (Node n : nodes) {
      if (n != null) {
        all.add(n.snapshot());
      }
    }
    return all;
  }

  /** The live path, {@code #0} first. */
  List<Integer> livePath() {
    return pathOf(live);
  }

  Optional<Integer> redoable() {
    return redo.isEmpty() ? Optional.empty() : Optional.of(redo.peek().number);
  }

  /** The checkpoints redo would re-apply, next first. */
  List<Integer> redoList() {
    List<Integer> list = new ArrayList<>();
    redo.forEach(n -> list.add(n.number));
    return list;
  }

  /** The checkpoint saved under {@code name}. */
  int saved(String name) {
    Set<String> names = new TreeSet<>();
    for (Node n : nodes()) {
      if (n.saved.contains(name)) {
        return n.number;
      }
      names.addAll(n.saved);
    }
    throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "This tab has no save named \"" + name + "\""
        + (names.isEmpty() ? " (it has none)." : " (it has " + String.join(", ", names) + ")."));
  }

  /**
   * Where browsing forward goes from each checkpoint that has been left toward a later one: the
   * child on the way to where live most recently was (the one rule for "forward"; the view cursor
   * itself lives in the tab's snapshots).
   */
  Map<Integer, Integer> forwardLinks() {
    Map<Integer, Integer> links = new TreeMap<>();
    for (Node n : nodes()) {
      if (n.next != null) {
        links.put(n.number, n.next.number);
      }
    }
    return links;
  }

  // ------------------------------------------------------------------------------- moving

  /**
   * Opens the next checkpoint as a child of live; it becomes live and files, and redo is cleared.
   * After a one-sided restore the files are not live's: the new checkpoint starts from them, so it
   * holds the difference from live to the files as its own change (undo writes it back).
   */
  Node begin(Instant created) {
    begun = new Begun(live, files, live.next, List.copyOf(redo));
    Node node = new Node(nodes.size(), live, CheckpointStatus.RUNNING, created);
    if (files != live) {
      RestorePlanner.plan(live, files).forEach((path, planned) ->
          node.changes.put(path, new FileChange(path, planned.base(), planned.target())));
    }
    nodes.add(node);
    live = node;
    files = node;
    redo.clear();
    linkTimeline(node);
    return node;
  }

  /** What {@link #begin} moved: live, files, where browsing forward went from live, and redo. */
  private record Begun(Node live, Node files, Node liveNext, List<Node> redo) {}

  /**
   * Takes back the checkpoint {@link #begin} just opened, as if it had never been: it holds no
   * change and is the last one, so no number is given twice to anything another saw. Returns
   * whether it could.
   */
  boolean withdraw(Node node) {
    if (begun == null || node.number != nodes.size() - 1 || !node.changes.isEmpty() || !node.children.isEmpty() || live != node || files != node) {
      return false;
    }
    nodes.remove(nodes.size() - 1);
    live = begun.live();
    files = begun.files();
    live.next = begun.liveNext();
    redo.clear();
    begun.redo().forEach(redo::addLast);
    begun = null;
    return true;
  }

  /**
   * Adds a finished checkpoint under {@code parent} for a restore or revert that is a checkpoint of
   * its own; it becomes live and files, and redo is cleared. When the files are not {@code parent}'s,
   * it starts from them, as {@link #begin} does.
   */
  Node add(Node parent, Instant created) {
    Node node = new Node(nodes.size(), parent, CheckpointStatus.DONE, created);
    if (files != parent) {
      RestorePlanner.plan(parent, files).forEach((path, planned) ->
          node.changes.put(path, new FileChange(path, planned.base(), planned.target())));
    }
    nodes.add(node);
    live = node;
    files = node;
    redo.clear();
    linkTimeline(node);
    return node;
  }

  /** Where undo goes: live's parent. */
  Node undoTarget() {
    if (live.parent == null) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "Nothing to undo: #0 is the start of this tab.");
    }
    return live.parent;
  }

  /** Where undo to {@code #number} goes: it must come before live. */
  Node undoToTarget(int number) {
    Node target = node(number);
    if (target == live || !isAncestor(target, live)) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "#" + number + " does not come before the live checkpoint #" + live.number
          + "; use goto to move to any checkpoint.");
    }
    return target;
  }

  Node redoTarget() {
    if (redo.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "Nothing to redo.");
    }
    return redo.peek();
  }

  /** The files now reflect {@code target}. */
  void filesMovedTo(Node target) {
    files = target;
  }

  /**
   * The conversation moves to {@code target}. Moving to an ancestor pushes the checkpoints left
   * on redo (the nearest on top); moving along them pops; any other move clears redo.
   */
  void liveMovedTo(Node target) {
    if (target != live) {
      if (isAncestor(target, live)) {
        for (Node n = live; n != target; n = n.parent) {
          redo.push(n);
        }
      } else if (redo.contains(target) && isAncestor(live, target)) {
        while (redo.pop() != target) {
          // drop the redone checkpoints up to the target
        }
      } else {
        redo.clear();
      }
    }
    live = target;
    linkTimeline(target);
  }

  /**
   * Refuses a move of the files across a checkpoint whose changes are gone from the store: the
   * files it changed could not be put where the target has them, and a restore that writes
   * nothing of them must not pass for one that worked.
   */
  void refuseLost(Node from, Node to) {
    Node a = from;
    Node b = to;
    Set<Integer> lost = new TreeSet<>();
    while (a != b) {
      Node deeper = a.depth >= b.depth ? a : b;
      if (deeper.lost) {
        lost.add(deeper.number);
      }
      if (deeper == a) {
        a = a.parent;
      } else {
        b = b.parent;
      }
    }
    if (!lost.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.LOST, "Cannot restore #" + to.number + ": what " + (lost.size() == 1 ? "checkpoint " : "checkpoints ")
          + String.join(", ", lost.stream().map(n -> "#" + n).toList())
          + " changed is gone from the shadow repository (deleted or damaged), so nothing was restored.");
    }
  }

  /**
   * What {@code target} holds for every path any checkpoint of the tab touched: what a restore
   * from the files checkpoint would write, else the latest "after" on its path from {@code #0},
   * else the "before" of the earliest checkpoint that touched the path (as it was before the tab).
   * The running checkpoint's "befores" do not count: its turn is still changing the files.
   */
  Map<String, FileVersion> versionsAt(Node target, Node running) {
    Map<String, FileVersion> versions = new TreeMap<>();
    RestorePlanner.plan(files, target).forEach((path, planned) -> versions.put(path, planned.target()));
    for (var entry : latestAfters(target).entrySet()) {
      versions.putIfAbsent(entry.getKey(), entry.getValue());
    }
    for (Node n : nodes()) {
      if (n != running) {
        for (FileChange change : n.changes.values()) {
          versions.putIfAbsent(change.path(), change.before());
        }
      }
    }
    return versions;
  }

  /** Every path changed on the way from {@code #0} to {@code node}, at its latest "after". */
  static Map<String, FileVersion> latestAfters(Node node) {
    Map<String, FileVersion> state = new TreeMap<>();
    for (Node n = node; n != null; n = n.parent) {
      for (FileChange change : n.changes.values()) {
        state.putIfAbsent(change.path(), change.after());
      }
    }
    return state;
  }

  // ------------------------------------------------------------------------------- loading

  /** Puts {@code #number} under {@code parent} (or {@code #0}), as a loaded tree has it. */
  Node put(int number, Node parent, CheckpointStatus status, Instant created) {
    while (nodes.size() <= number) {
      nodes.add(null);
    }
    Node node = number == 0 ? new Node(0, null, CheckpointStatus.DONE, created)
        : new Node(number, parent == null ? nodes.get(0) : parent, status, created);
    nodes.set(number, node);
    return node;
  }

  /** Where a loaded tree stands: live, the files, and redo (next first). */
  void position(Node live, Node files, List<Integer> redoNext) {
    this.live = live;
    this.files = files;
    redo.clear();
    for (int i = redoNext.size() - 1; i >= 0; i--) {
      if (exists(redoNext.get(i))) {
        redo.push(nodes.get(redoNext.get(i)));
      }
    }
    linkTimeline(live);
  }

  // ------------------------------------------------------------------------------- helpers

  static boolean isAncestor(Node ancestor, Node of) {
    Node n = of;
    while (n != null && n.depth > ancestor.depth) {
      n = n.parent;
    }
    return n == ancestor;
  }

  static List<Integer> pathOf(Node node) {
    List<Integer> path = new ArrayList<>(node.depth + 1);
    for (Node n = node; n != null; n = n.parent) {
      path.add(n.number);
    }
    Collections.reverse(path);
    return path;
  }

  /**
   * Points each ancestor's {@code next} toward {@code node}, so that view-forward walks to it. The
   * whole way up: an ancestor already pointing at its child says nothing of those above it (live
   * may have been on another branch from there meanwhile).
   */
  private static void linkTimeline(Node node) {
    for (Node n = node; n.parent != null; n = n.parent) {
      n.parent.next = n;
    }
  }

  /** Folds a record into the node's changes: the first "before", the last "after"; dropped when equal. */
  static void fold(Node node, String path, FileVersion before, FileVersion after) {
    FileChange earlier = node.changes.get(path);
    FileVersion first = earlier == null ? before : earlier.before();
    if (first.equals(after)) {
      node.changes.remove(path);
    } else {
      node.changes.put(path, new FileChange(path, first, after));
    }
  }

  /** Puts back what the node held for {@code path} before a record that was then withdrawn. */
  static void putChange(Node node, String path, Optional<FileChange> previous) {
    if (previous.isPresent()) {
      node.changes.put(path, previous.get());
    } else {
      node.changes.remove(path);
    }
  }

  /** A checkpoint's mutable state inside the graph. */
  static final class Node {
    final int number;
    final Node parent;
    final int depth;
    final Instant created;
    final TreeMap<String, FileChange> changes = new TreeMap<>();
    final Set<String> saved = new TreeSet<>();
    Node next;
    CheckpointStatus status;
    /** Its file changes are gone from the store: no restore may cross it. */
    boolean lost;
    /** Where the writer keeps it: its commit and tag (values only; the graph never acts on them). */
    ObjectId commit;
    String tag;
    /** The tabs its turn's subagents worked in (added from a tool's thread while the turn runs). */
    final List<ChildLink> children = new CopyOnWriteArrayList<>();
    /** For a land's checkpoint, what it records of the tab's view ({@link LandRecords} reads it from the commit once). */
    LandRecord land;
    boolean landRead;

    Node(int number, Node parent, CheckpointStatus status, Instant created) {
      this.number = number;
      this.parent = parent;
      this.depth = parent == null ? 0 : parent.depth + 1;
      this.status = status;
      this.created = created;
    }

    Checkpoint snapshot() {
      return new Checkpoint(number, parent == null ? -1 : parent.number, status, created,
          new ArrayList<>(changes.values()), Optional.ofNullable(commit), Optional.ofNullable(tag), saved, children);
    }
  }
}
