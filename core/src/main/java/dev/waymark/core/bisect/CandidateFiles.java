package dev.waymark.core.bisect;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a checkpoint's files differ from those the tab's files are at now, per path: its version
 * there (absent: the path does not exist there). The restore planner's rule (undo up to the common
 * ancestor, apply down to the target), on the snapshot's immutable values so that it runs off the
 * tab's thread; it reads only the checkpoints in between, never the project.
 */
final class CandidateFiles {
  private final Map<Integer, Checkpoint> byNumber = new HashMap<>();
  private final int from;

  /** Against the checkpoint {@code tree}'s files are at. */
  CandidateFiles(TreeSnapshot tree) {
    tree.checkpoints().forEach(c -> byNumber.put(c.number(), c));
    this.from = tree.filesAt();
  }

  /** What {@code #to} holds, for each path that differs between it and the files now. */
  Map<String, FileVersion> at(int to) {
    List<Checkpoint> up = new ArrayList<>(); // undone, deepest first
    List<Checkpoint> down = new ArrayList<>(); // applied, deepest first
    List<Integer> fromPath = toRoot(from);
    List<Integer> toPath = toRoot(to);
    int common = fromPath.stream().filter(toPath::contains).findFirst().orElseThrow();
    fromPath.subList(0, fromPath.indexOf(common)).forEach(n -> up.add(byNumber.get(n)));
    toPath.subList(0, toPath.indexOf(common)).forEach(n -> down.add(byNumber.get(n)));
    Map<String, FileVersion> versions = new TreeMap<>();
    Map<String, FileVersion> base = new HashMap<>();
    for (Checkpoint c : up) {
      for (FileChange change : c.changes()) {
        base.putIfAbsent(change.path(), change.after());
        versions.put(change.path(), change.before()); // the shallowest undone one's before wins
      }
    }
    Map<String, FileVersion> applied = new HashMap<>();
    Map<String, FileVersion> appliedBase = new HashMap<>();
    for (Checkpoint c : down) {
      for (FileChange change : c.changes()) {
        applied.putIfAbsent(change.path(), change.after()); // the deepest applied one's after wins
        appliedBase.put(change.path(), change.before()); // the shallowest applied one's before
      }
    }
    versions.putAll(applied);
    appliedBase.forEach(base::putIfAbsent); // the deepest undone one's after, else that
    versions.entrySet().removeIf(e -> e.getValue().equals(base.get(e.getKey())));
    return versions;
  }

  private List<Integer> toRoot(int number) {
    List<Integer> path = new ArrayList<>();
    for (Checkpoint c = byNumber.get(number); c != null; c = byNumber.get(c.parent())) {
      path.add(c.number());
    }
    return path;
  }
}
