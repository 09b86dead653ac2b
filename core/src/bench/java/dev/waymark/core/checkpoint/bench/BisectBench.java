package dev.waymark.core.checkpoint.bench;

import static dev.waymark.core.checkpoint.bench.BenchTools.deleteTree;
import static dev.waymark.core.checkpoint.bench.BenchTools.git;
import static dev.waymark.core.checkpoint.bench.BenchTools.median;
import static dev.waymark.core.checkpoint.bench.BenchTools.medianMillis;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.bisect.Bisection;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.layer.ScratchLayer;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * Bisect (issue 43): what making one candidate's throw-away layer costs on a 100,000-file project
 * whose tab has 16 checkpoints (each edits 5 files, adds one and deletes one), for every candidate
 * from #0 (the most to undo) to #15, against {@code git status} on the same tree in the same run
 * (the ratio's baseline: looking at the project once). Target: each layer in 50 ms or less. Then
 * one whole bisect of 17 checkpoints with a command that does nothing but look at one file, for
 * what the sandbox and the mount add per candidate.
 *
 * <p>{@code BisectBench --sizes=100000 --out=DIR}; needs {@code git}, {@code bwrap} and overlay
 * mounts in user namespaces.
 */
public final class BisectBench {
  private static final int TURNS = 16;
  private static final int ROUNDS = 5;

  private BisectBench() {}

  public static void main(String[] args) throws Exception {
    BenchArgs parsed = BenchArgs.parse(args, List.of(100_000));
    List<Integer> sizes = parsed.sizes();
    Path out = parsed.out();
    Files.createDirectories(out);
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "%-8s %10s %12s %12s %12s %8s %14s %12s%n",
        "files", "git status", "layer median", "layer max", "upper paths", "ratio", "bisect (17)", "per test"));
    for (int size : sizes) {
      table.append(measure(size));
    }
    Files.writeString(out.resolve("bisect.txt"), table.toString(), StandardCharsets.UTF_8);
    System.out.print(table);
  }

  private static String measure(int size) throws Exception {
    Path root = Files.createTempDirectory("waymark-bisect-bench");
    try {
      Path project = root.resolve("project");
      ProjectGenerator.Project generated = BenchTools.committedTree(project, size);
      project = project.toRealPath();
      Path home = Files.createDirectories(root.resolve("home"));
      double gitStatus = medianMillis(() -> git(root.resolve("project"), "status", "--porcelain"), ROUNDS);
      ShellSandbox sandbox = ShellSandbox.detect(SandboxPolicy.protecting(home, root.resolve("config")),
          System.getenv("PATH"));
      try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
        CheckpointTree tree = store.newTab();
        List<String> files = ProjectGenerator.pick(generated.files(), TURNS * 6, 7);
        for (int turn = 0; turn < TURNS; turn++) {
          Turn t = tree.begin();
          for (int i = 0; i < 5; i++) {
            String path = files.get(turn * 6 + i);
            FileState before = t.read(path);
            Files.writeString(project.resolve(path), "edited at turn " + turn + "\n", StandardOpenOption.APPEND);
            t.recordFromDisk(path, before);
          }
          String added = "added/turn" + turn + "/new.txt";
          FileState none = t.read(added);
          Files.createDirectories(project.resolve(added).getParent());
          Files.writeString(project.resolve(added), "new at turn " + turn + "\n");
          t.recordFromDisk(added, none);
          String gone = files.get(turn * 6 + 5);
          FileState was = t.read(gone);
          Files.delete(project.resolve(gone));
          t.recordFromDisk(gone, was);
          t.finish(CheckpointStatus.DONE);
        }
        Bisection bisection = Bisection.open(new Bisection.Setup(project, store.scratchDirectory("bisect"), sandbox,
            store::readBlob, System.getenv(), Duration.ofMinutes(1)));
        TreeSnapshot snapshot = tree.snapshot();
        List<Double> layers = new ArrayList<>();
        int paths = 0;
        for (int round = 0; round <= ROUNDS; round++) {
          for (int candidate = 0; candidate < TURNS; candidate++) {
            long t = System.nanoTime();
            ScratchLayer layer = bisection.prepare(snapshot, candidate);
            double millis = (System.nanoTime() - t) / 1e6;
            paths = Math.max(paths, layer.written() + layer.deleted());
            layer.close();
            if (round > 0) { // the first round warms the caches and the compiler
              layers.add(millis);
            }
          }
        }
        long t = System.nanoTime();
        var result = bisection.run(snapshot, OptionalInt.empty(), OptionalInt.empty(),
            "test ! -e added/turn11/new.txt", Bisection.Progress.NONE);
        double whole = (System.nanoTime() - t) / 1e6;
        if (result.firstBad().orElse(-1) != 12) {
          throw new IllegalStateException("the bisect found " + result + ", not #12");
        }
        double max = layers.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return String.format(Locale.ROOT, "%-8d %8.1f ms %9.1f ms %9.1f ms %12d %7.2fx %11.0f ms %9.0f ms%n", size,
            gitStatus, median(layers), max, paths, median(layers) / gitStatus, whole, whole / result.steps().size());
      }
    } finally {
      deleteTree(root);
    }
  }

}
