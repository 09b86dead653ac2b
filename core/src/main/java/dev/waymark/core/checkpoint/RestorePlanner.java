package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What moving a tab's files from one checkpoint to another must do, decided without touching
 * anything: which paths change ({@link #plan}), and for each, given what is on disk now, whether
 * to keep it, write the target, carry a later edit by someone else over by a merge, or stop on a
 * clash ({@link #decide}). {@link FileRestore} reads the disk, asks, and writes.
 */
final class RestorePlanner {
  private RestorePlanner() {}

  /** For one path: the version the tab expects on disk now, and the version the target wants. */
  record Planned(FileVersion base, FileVersion target) {}

  /** What to do about one path. */
  enum Action {
    /** The disk holds the target already. */
    KEEP,
    /** The disk holds the tab's own version: write {@link Decision#next()}. */
    WRITE,
    /** Someone else changed the text since: a three-way merge may carry that change over. */
    MERGE,
    /** Someone else changed it in a way no merge can carry (binary, link, deleted or created on one side). */
    CONFLICT,
    /** A directory or special file stands where the path is: it depends on what else the restore removes. */
    BLOCKED
  }

  /** The action, and for {@link Action#WRITE} the version to write. */
  record Decision(Action action, FileVersion next) {
    static Decision of(Action action) {
      return new Decision(action, null);
    }
  }

  /**
   * The paths that differ between two checkpoints of one graph. With L their lowest common
   * ancestor, the nodes from {@code from} up to L are undone and those from L down to {@code to}
   * applied. Per path, the target is the "after" of the deepest applied node that touched it, else
   * the "before" of the shallowest undone one; the base is the "after" of the deepest undone node,
   * else the "before" of the shallowest applied one. Paths whose base is their target are left out.
   */
  static Map<String, Planned> plan(Node from, Node to) {
    List<Node> up = new ArrayList<>(); // deepest first
    List<Node> down = new ArrayList<>(); // deepest first
    Node a = from;
    Node b = to;
    while (a.depth > b.depth) {
      up.add(a);
      a = a.parent;
    }
    while (b.depth > a.depth) {
      down.add(b);
      b = b.parent;
    }
    while (a != b) {
      up.add(a);
      a = a.parent;
      down.add(b);
      b = b.parent;
    }
    Map<String, FileVersion> upBase = new HashMap<>();
    Map<String, FileVersion> upTarget = new HashMap<>();
    for (Node n : up) {
      for (FileChange c : n.changes.values()) {
        upBase.putIfAbsent(c.path(), c.after());
        upTarget.put(c.path(), c.before());
      }
    }
    Map<String, FileVersion> downTarget = new HashMap<>();
    Map<String, FileVersion> downBase = new HashMap<>();
    for (Node n : down) {
      for (FileChange c : n.changes.values()) {
        downTarget.putIfAbsent(c.path(), c.after());
        downBase.put(c.path(), c.before());
      }
    }
    Set<String> paths = new TreeSet<>(upTarget.keySet());
    paths.addAll(downTarget.keySet());
    Map<String, Planned> plan = new TreeMap<>();
    for (String path : paths) {
      FileVersion target = downTarget.containsKey(path) ? downTarget.get(path) : upTarget.get(path);
      FileVersion base = upBase.containsKey(path) ? upBase.get(path) : downBase.get(path);
      if (!target.equals(base)) {
        plan.put(path, new Planned(base, target));
      }
    }
    return plan;
  }

  /**
   * What to do about one planned path given what is on disk: the target there already, keep it;
   * the tab's own version (maybe with a mode someone changed since, which stays when the kind
   * does), write the target; text changed by someone else on all three sides, merge; a directory
   * or special file, blocked; anything else is a clash.
   */
  static Decision decide(Planned planned, WorkTree.DiskFile disk) {
    FileVersion base = planned.base();
    FileVersion target = planned.target();
    if (disk.matches(target)) {
      return Decision.of(Action.KEEP);
    }
    if (disk.sameContent(base)) {
      FileVersion next = keepChangedMode(base, disk, target);
      return disk.matches(next) ? Decision.of(Action.KEEP) : new Decision(Action.WRITE, next);
    }
    if (disk.blocked()) {
      return Decision.of(Action.BLOCKED);
    }
    return Decision.of(mergeable(base, disk, target) ? Action.MERGE : Action.CONFLICT);
  }

  /** {@code target}, with the mode found on disk when it differs from the tab's and the kind stays. */
  static FileVersion keepChangedMode(FileVersion base, WorkTree.DiskFile disk, FileVersion target) {
    boolean changed = base.hasMode() && disk.mode() != FileVersion.NO_MODE && disk.mode() != base.mode();
    return changed && target.exists() && target.kind() == base.kind()
        ? new FileVersion(target.kind(), target.blob(), disk.mode()) : target;
  }

  private static boolean mergeable(FileVersion base, WorkTree.DiskFile disk, FileVersion target) {
    return isText(base.kind()) && isText(disk.kind()) && isText(target.kind())
        && disk.size() <= ShadowRepository.MERGEABLE_LIMIT;
  }

  static boolean isText(FileKind kind) {
    return kind == FileKind.REGULAR || kind == FileKind.EXECUTABLE;
  }
}
