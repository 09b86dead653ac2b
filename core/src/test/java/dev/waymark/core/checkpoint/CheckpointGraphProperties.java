package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.Planned;
import dev.waymark.core.checkpoint.restore.RestoreDecision;
import dev.waymark.core.checkpoint.restore.RestoreDecision.Action;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.statistics.Statistics;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The pure checkpoint graph and restore planner, in memory, against a specification that keeps a
 * full snapshot of the tab's files at every checkpoint, 100,000 tries of up to 30 steps.
 *
 * <p>The specification ({@link Spec}) never looks at a change's before or after, or at the path
 * between two checkpoints: a turn's checkpoint starts as a copy of the files checkpoint's snapshot
 * and its writes overwrite paths in it. Moving the files from F to T must then write exactly the
 * paths whose version differs between the snapshots of F and T, expecting F's version on disk
 * (the base) and writing T's (the target). The graph instead keeps only each checkpoint's folded
 * changes and walks up and down through the common ancestor ({@link RestorePlanner#plan}); the
 * two must agree for every pair of checkpoints after every step. Against a disk someone else may
 * have changed (a chmod, an edit, a deletion, a directory in the way, a huge file), each planned
 * path's decision is the one the specification's table gives. Live, the files checkpoint, the
 * live path, redo (as a stack), the view cursor and what {@code diff} compares against follow the
 * rules in core/README.md, and an undo, undo-to or redo the rules refuse is refused.
 *
 * <p>Each try is a list of numbers, each read as one step; shrinking shortens the list.
 */
@Tag("load")
class CheckpointGraphProperties {
  static final List<String> PATHS = List.of("a.txt", "b.txt", "src/c.txt", "run.sh");
  static final List<FileVersion> VERSIONS = List.of(
      FileVersion.ABSENT,
      version(FileKind.REGULAR, 1, 0644),
      version(FileKind.REGULAR, 2, 0644),
      version(FileKind.REGULAR, 3, FileVersion.NO_MODE),
      version(FileKind.REGULAR, 2, 0600),
      version(FileKind.EXECUTABLE, 1, 0755),
      version(FileKind.EXECUTABLE, 4, 0700),
      version(FileKind.SYMLINK, 5, FileVersion.NO_MODE),
      version(FileKind.REGULAR, 6, 0644));

  static FileVersion version(FileKind kind, int blob, int mode) {
    return new FileVersion(kind, ObjectId.fromString(String.format("%040x", blob)), mode);
  }

  // --------------------------------------------------------------------------- the property

  @Property(tries = 100_000, edgeCases = EdgeCasesMode.MIXIN)
  void theGraphAndPlannerDoWhatTheSnapshotsSay(@ForAll("steps") List<Integer> steps) {
    World world = new World();
    for (int i = 0; i < steps.size(); i++) {
      try {
        world.play(steps.get(i));
        world.check(steps.get(i));
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("step " + (i + 1) + " of " + steps + ": " + world.said + "\n" + e.getMessage(), e);
      }
    }
    // One label, a flag per situation; the coverage floors fail the property should the generator
    // stop reaching one (it would then pass without testing it).
    Object[] flags = SITUATIONS.keySet().stream().map(world.seen::contains).toArray();
    Statistics.collect(flags);
    Statistics.coverage(coverage -> {
      int i = 0;
      for (var floor : SITUATIONS.entrySet()) {
        int at = i++;
        coverage.checkQuery(f -> (Boolean) f.get(at)).percentage(p -> p >= floor.getValue());
      }
    });
  }

  static final Map<String, Double> SITUATIONS = new LinkedHashMap<>();

  static {
    SITUATIONS.put("KEEP", 10.0);
    SITUATIONS.put("WRITE", 20.0);
    SITUATIONS.put("MERGE", 5.0);
    SITUATIONS.put("CONFLICT", 5.0);
    SITUATIONS.put("BLOCKED", 5.0);
    SITUATIONS.put("not applied", 5.0);
    SITUATIONS.put("one-sided restore", 5.0);
    SITUATIONS.put("turn after a one-sided restore", 1.0);
    SITUATIONS.put("goto pops several redo nodes", 0.1);
    SITUATIONS.put("files move across branches", 5.0);
  }

  @Provide
  Arbitrary<List<Integer>> steps() {
    return Arbitraries.integers().between(0, Integer.MAX_VALUE).list().ofMaxSize(30);
  }

  // ------------------------------------------------------------------------ the specification

  /** A tab as full snapshots: checkpoint n's files are {@code snapshot.get(n)}, a version for every path. */
  static final class Spec {
    final List<Integer> parent = new ArrayList<>();
    final List<Map<String, FileVersion>> snapshot = new ArrayList<>();
    final Deque<Integer> redo = new ArrayDeque<>(); // next first
    final Map<Integer, Integer> forward = new HashMap<>(); // where view-forward goes from a checkpoint
    int live;
    int files;

    Spec(Map<String, FileVersion> start) {
      parent.add(-1);
      snapshot.add(new TreeMap<>(start));
    }

    int size() {
      return parent.size();
    }

    List<Integer> path(int n) {
      List<Integer> path = new ArrayList<>();
      for (int x = n; x >= 0; x = parent.get(x)) {
        path.add(0, x);
      }
      return path;
    }

    boolean properAncestor(int a, int of) {
      return a != of && path(of).contains(a);
    }

    /** A turn: a copy of the files' snapshot, as a child of live. */
    int begin() {
      parent.add(live);
      snapshot.add(new TreeMap<>(snapshot.get(files)));
      live = files = size() - 1;
      redo.clear();
      follow(live);
      return live;
    }

    /** What moving the files from {@code from} to {@code to} writes: each path where the snapshots differ. */
    Map<String, Planned> planned(int from, int to) {
      Map<String, Planned> plan = new TreeMap<>();
      for (String p : PATHS) {
        FileVersion base = snapshot.get(from).get(p);
        FileVersion target = snapshot.get(to).get(p);
        if (!base.equals(target)) {
          plan.put(p, new Planned(base, target));
        }
      }
      return plan;
    }

    /** Live moves: back to an ancestor pushes what it leaves; along the redo stack pops; elsewhere clears. */
    void moveLive(int to) {
      if (to == live) {
        return;
      }
      if (properAncestor(to, live)) {
        List<Integer> left = path(live).subList(path(to).size(), path(live).size()); // to's child first
        for (int i = left.size() - 1; i >= 0; i--) {
          redo.push(left.get(i));
        }
      } else if (redo.contains(to) && properAncestor(live, to)) {
        while (redo.pop() != to) {
          // popped
        }
      } else {
        redo.clear();
      }
      live = to;
      follow(to);
    }

    /** View-forward from each checkpoint on the way to {@code n} goes toward {@code n}. */
    private void follow(int n) {
      List<Integer> path = path(n);
      for (int i = 1; i < path.size(); i++) {
        forward.put(path.get(i - 1), path.get(i));
      }
    }

    /** Every path some checkpoint changed, at {@code n}'s version: what diff compares the disk with. */
    Map<String, FileVersion> diffBase(int n) {
      Map<String, FileVersion> wanted = new TreeMap<>();
      for (int x = 1; x < size(); x++) {
        for (String p : PATHS) {
          if (!snapshot.get(x).get(p).equals(snapshot.get(parent.get(x)).get(p))) {
            wanted.put(p, snapshot.get(n).get(p));
          }
        }
      }
      return wanted;
    }

    /**
     * The decision table for one planned path, by what the disk holds: a directory, blocked; the
     * target (permission bits agreeing where both are known), keep; the tab's own content (its
     * base), write the target, with the disk's bits when someone changed them and the kind stays;
     * text everywhere within the size limit, merge; anything else, a clash.
     */
    static RestoreDecision decision(Planned planned, WorkTree.DiskFile disk) {
      FileVersion base = planned.base();
      FileVersion target = planned.target();
      if (disk.blocked()) {
        return new RestoreDecision(Action.BLOCKED, null);
      }
      if (holds(disk, target)) {
        return new RestoreDecision(Action.KEEP, null);
      }
      boolean ownContent = disk.kind() == base.kind() && Objects.equals(disk.id(), base.blob());
      if (ownContent) {
        boolean bitsChanged = base.hasMode() && disk.mode() != FileVersion.NO_MODE && disk.mode() != base.mode();
        FileVersion write = bitsChanged && target.kind() == base.kind() && target.exists()
            ? new FileVersion(target.kind(), target.blob(), disk.mode()) : target;
        return holds(disk, write) ? new RestoreDecision(Action.KEEP, null) : new RestoreDecision(Action.WRITE, write);
      }
      Set<FileKind> text = Set.of(FileKind.REGULAR, FileKind.EXECUTABLE);
      boolean allText = text.contains(base.kind()) && text.contains(disk.kind()) && text.contains(target.kind());
      return new RestoreDecision(allText && disk.size() <= ShadowRepository.MERGEABLE_LIMIT ? Action.MERGE : Action.CONFLICT, null);
    }

    private static boolean holds(WorkTree.DiskFile disk, FileVersion v) {
      boolean bitsAgree = !v.hasMode() || disk.mode() == FileVersion.NO_MODE || disk.mode() == v.mode();
      return disk.kind() == v.kind() && Objects.equals(disk.id(), v.blob()) && bitsAgree;
    }
  }

  // ----------------------------------------------------------------------------- the world

  /** The graph and the specification side by side, driven by one number per step. */
  static final class World {
    final CheckpointGraph graph = new CheckpointGraph(Instant.EPOCH);
    final Spec spec;
    final Set<String> seen = new TreeSet<>();
    String said = "";
    private int seed = 17;

    World() {
      Map<String, FileVersion> start = new TreeMap<>();
      for (String p : PATHS) {
        start.put(p, VERSIONS.get(Math.floorMod(p.hashCode(), VERSIONS.size())));
      }
      spec = new Spec(start);
    }

    /** Successive small choices out of one step's number. */
    private int pick(int n) {
      int choice = Math.floorMod(seed, n);
      seed = seed / n;
      return choice;
    }

    void play(int step) {
      seed = step;
      int kind = pick(10);
      switch (kind) {
        case 0, 1, 2 -> turn();
        case 3 -> navigate("undo", () -> graph.undoTarget(), spec.live == 0 ? -1 : spec.parent.get(spec.live));
        case 4 -> {
          int to = pick(spec.size());
          navigate("undo to #" + to, () -> graph.undoToTarget(to), spec.properAncestor(to, spec.live) ? to : -1);
        }
        case 5 -> navigate("redo", () -> graph.redoTarget(), spec.redo.isEmpty() ? -1 : spec.redo.peek());
        case 6, 7 -> {
          int to = pick(spec.size());
          RestoreMode mode = RestoreMode.values()[pick(RestoreMode.values().length)];
          restore("restore #" + to + " " + mode, graph.node(to), to, mode);
        }
        default -> view();
      }
    }

    private void turn() {
      boolean oneSided = spec.live != spec.files;
      int n = spec.begin();
      Node node = graph.begin(Instant.EPOCH);
      int writes = 1 + pick(4);
      Map<String, FileVersion> before = new TreeMap<>(spec.snapshot.get(n));
      StringBuilder what = new StringBuilder("turn #" + n + ":");
      for (int i = 0; i < writes; i++) {
        String p = PATHS.get(pick(PATHS.size()));
        // now and then a path is put back as the turn found it: its records fold away
        FileVersion v = pick(5) == 0 ? before.get(p) : VERSIONS.get(pick(VERSIONS.size()));
        CheckpointGraph.fold(node, p, spec.snapshot.get(n).get(p), v);
        spec.snapshot.get(n).put(p, v);
        what.append(' ').append(p).append('=').append(v);
      }
      if (oneSided) {
        seen.add("turn after a one-sided restore");
      }
      said = what.toString();
    }

    private interface Target {
      Node get();
    }

    private void navigate(String what, Target target, int expected) {
      said = what;
      if (expected < 0) {
        try {
          target.get();
          throw new AssertionError(what + " was allowed; the rules refuse it");
        } catch (CheckpointException refused) {
          return;
        }
      }
      restore(what, target.get(), expected, RestoreMode.BOTH);
    }

    private void restore(String what, Node target, int to, RestoreMode mode) {
      said = what;
      assertThat(target.number).as("target").isEqualTo(to);
      boolean applied = true;
      if (mode.movesFiles() && to != spec.files) {
        Map<String, Planned> plan = RestorePlanner.plan(graph.files(), target);
        assertThat(plan).as("the plan from #%d to #%d", spec.files, to).isEqualTo(spec.planned(spec.files, to));
        for (var entry : plan.entrySet()) {
          WorkTree.DiskFile disk = disk(entry.getValue());
          RestoreDecision decision = RestoreDecision.decide(entry.getValue(), disk);
          assertThat(decision).as("%s with %s on disk", entry, disk).isEqualTo(Spec.decision(entry.getValue(), disk));
          seen.add(decision.action().name());
          applied &= decision.action() != Action.CONFLICT && decision.action() != Action.BLOCKED || pick(2) == 0;
        }
        if (applied) {
          graph.filesMovedTo(target);
          spec.files = to;
        }
      }
      if (!applied) {
        seen.add("not applied");
        return;
      }
      if (mode.movesConversation()) {
        if (spec.redo.contains(to) && spec.properAncestor(spec.live, to) && spec.redo.peek() != to) {
          seen.add("goto pops several redo nodes");
        }
        graph.liveMovedTo(target);
        spec.moveLive(to);
      }
      if (spec.live != spec.files) {
        seen.add("one-sided restore");
      }
    }

    /** What someone else may have left at a planned path. */
    private WorkTree.DiskFile disk(Planned planned) {
      FileVersion base = planned.base();
      FileVersion target = planned.target();
      return switch (pick(8)) {
        case 0, 1, 2 -> onDisk(base, base.mode());
        case 3 -> onDisk(target, target.mode());
        case 4 -> onDisk(base, base.kind() == FileKind.EXECUTABLE ? 0700 : base.kind() == FileKind.REGULAR ? 0600 : base.mode());
        case 5 -> new WorkTree.DiskFile(FileKind.ABSENT, true, null, 0, FileVersion.NO_MODE);
        case 6 -> {
          FileVersion other = VERSIONS.get(pick(VERSIONS.size()));
          yield pick(4) == 0 && other.exists()
              ? new WorkTree.DiskFile(other.kind(), false, other.blob(), ShadowRepository.MERGEABLE_LIMIT + 1L, other.mode())
              : onDisk(other, other.mode());
        }
        default -> onDisk(VERSIONS.get(pick(VERSIONS.size())), FileVersion.NO_MODE);
      };
    }

    private static WorkTree.DiskFile onDisk(FileVersion v, int mode) {
      return v.exists() ? new WorkTree.DiskFile(v.kind(), false, v.blob(), 10, v.kind() == FileKind.SYMLINK ? FileVersion.NO_MODE : mode)
          : WorkTree.DiskFile.ABSENT;
    }

    /** Browsing forward from any checkpoint: the way live last went from there (the view cursor reads these). */
    private void view() {
      said = "forward links";
      assertThat(graph.forwardLinks()).as("forward links").isEqualTo(new TreeMap<>(spec.forward));
    }

    void check(int step) {
      assertThat(graph.live().number).as("live").isEqualTo(spec.live);
      assertThat(graph.files().number).as("files").isEqualTo(spec.files);
      assertThat(graph.livePath()).as("live path").isEqualTo(spec.path(spec.live));
      assertThat(graph.redoList()).as("redo").containsExactlyElementsOf(spec.redo);
      assertThat(graph.forwardLinks()).as("forward links").isEqualTo(new TreeMap<>(spec.forward));
      assertThat(graph.nodes()).hasSize(spec.size());
      // any two checkpoints: the plan between them is the difference of their snapshots
      seed = step ^ 0x5bd1e995;
      int from = pick(spec.size());
      int to = pick(spec.size());
      assertThat(RestorePlanner.plan(graph.node(from), graph.node(to))).as("the plan from #%d to #%d", from, to)
          .isEqualTo(spec.planned(from, to));
      if (from != to && !spec.properAncestor(from, to) && !spec.properAncestor(to, from)) {
        seen.add("files move across branches");
      }
      assertThat(graph.versionsAt(graph.node(to), null)).as("what diff #%d compares", to).isEqualTo(spec.diffBase(to));
    }
  }
}
