package dev.waymark.core.checkpoint.bench;

import static dev.waymark.core.checkpoint.bench.BenchTools.deleteTree;
import static dev.waymark.core.checkpoint.bench.BenchTools.medianMillis;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.BenchAccess;
import dev.waymark.core.checkpoint.CheckpointAt;
import dev.waymark.core.checkpoint.CheckpointComparison;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.FileState;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The diff of two checkpoints 10 turns apart (issue 43's target: at most 100 ms at 100,000 files),
 * each turn editing {@value #PER_TURN} files of a committed generated tree, as {@code checkpoints diff A B}
 * computes it: both sides' versions from the tab's snapshot, then the unified text of every file that
 * differs, read from the shadow repository. Nothing walks the project, so the project's size should
 * not show.
 *
 * <p>{@code CompareBench --sizes=100000 --out=DIR}; needs {@code git}.
 */
public final class CompareBench {
  private static final int TURNS = 11;
  private static final int PER_TURN = 10;
  private static final double TARGET_MS = 100;

  private CompareBench() {}

  public static void main(String[] args) throws Exception {
    BenchArgs parsed = BenchArgs.parse(args, List.of(100_000));
    List<Integer> sizes = parsed.sizes();
    Path out = parsed.out();
    BenchAccess.isolateGit();
    Files.createDirectories(out);
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "%-8s %-12s %8s %10s %10s %10s %s%n",
        "files", "diff", "differ", "median ms", "cpu ms", "target", ""));
    for (int size : sizes) {
      String row = one(size);
      System.out.print(row);
      table.append(row);
    }
    Files.writeString(out.resolve("compare.txt"), table, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(table);
    System.out.println("(saved to " + out.resolve("compare.txt") + ")");
  }

  private static String one(int size) throws Exception {
    Path temp = Files.createTempDirectory("waymark-compare-bench-");
    try {
      Path project = temp.resolve("project");
      ProjectGenerator.Project generated = BenchTools.committedTree(project, size);
      try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
        CheckpointTree tree = store.openTab("bench");
        List<String> all = ProjectGenerator.pick(generated.files(), TURNS * PER_TURN, 11);
        for (int t = 0; t < TURNS; t++) {
          Edits edits = new Edits(project, all.subList(t * PER_TURN, (t + 1) * PER_TURN));
          Turn turn = tree.begin();
          for (int i = 0; i < PER_TURN; i++) {
            String path = edits.paths().get(i);
            FileState before = turn.read(path);
            byte[] next = edits.next(i);
            turn.recordAhead(path, before, FileState.of(before.kind(), next));
            Files.write(project.resolve(path), next);
          }
          turn.finish(CheckpointStatus.DONE);
        }
        CheckpointComparison comparison = tree.comparison();
        List<Integer> differ = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double ms = medianMillis(() -> {
          long cpuStart = threads.getCurrentThreadCpuTime();
          // as the tab answers Compare: a fresh snapshot, both sides, every differing file's text
          TreeSnapshot snapshot = tree.snapshot();
          List<CheckpointComparison.Delta> deltas = CheckpointComparison.deltas(new CheckpointAt(snapshot, 1),
              new CheckpointAt(snapshot, TURNS), Set.of());
          deltas.forEach(comparison::text);
          differ.add(deltas.size());
          cpu.add((threads.getCurrentThreadCpuTime() - cpuStart) / 1e6);
        }, 15);
        // the CPU time this thread spent: on a shared machine the wall time also counts the waits for a core
        return String.format(Locale.ROOT, "%-8d %-12s %8d %10.1f %10.1f %10s %s%n", size, "#1..#" + TURNS, differ.get(0), ms,
            BenchTools.median(cpu), "≤ " + (int) TARGET_MS, ms <= TARGET_MS ? "met" : "MISSED (wall)");
      }
    } finally {
      deleteTree(temp);
    }
  }
}
