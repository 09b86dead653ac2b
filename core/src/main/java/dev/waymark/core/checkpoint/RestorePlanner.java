package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.Planned;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which paths moving a tab's files from one checkpoint to another changes, and from what to what,
 * decided on the graph alone; what to do about each given the disk is {@link RestoreDecision}'s.
 */
final class RestorePlanner {
  private RestorePlanner() {}

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
}
