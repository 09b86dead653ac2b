package dev.waymark.core.checkpoint.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/** What the bench mains share: timing by median, the real {@code git}, and removing a generated tree. */
final class BenchTools {
  private BenchTools() {}

  interface Action {
    void run() throws Exception;
  }

  /** The median of {@code times} runs of {@code action}, in milliseconds, after one run that warms the caches. */
  static double medianMillis(Action action, int times) throws Exception {
    action.run();
    List<Double> samples = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      long t = System.nanoTime();
      action.run();
      samples.add((System.nanoTime() - t) / 1e6);
    }
    return median(samples);
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** Runs {@code git} in {@code dir} with no user settings that could change what it costs. */
  static void git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=bench", "-c", "user.email=bench@localhost",
        "-c", "core.excludesFile=/dev/null", "-c", "gc.auto=0"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("git " + String.join(" ", args) + " failed in " + dir);
    }
  }

  /** The bench's generated tree of {@code size} files in {@code dir}, as a git repository with it all committed. */
  static ProjectGenerator.Project committedTree(Path dir, int size) throws Exception {
    ProjectGenerator.Project generated = ProjectGenerator.generate(dir, size, 42);
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "tree");
    return generated;
  }

  /** Deletes {@code root} and all below it, even directories left without write permission (an overlay's work dir). */
  static void deleteTree(Path root) throws Exception {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Collections.reverseOrder()).toList()) {
        p.toFile().setWritable(true);
        p.toFile().setExecutable(true);
        p.toFile().delete();
      }
    }
  }
}
