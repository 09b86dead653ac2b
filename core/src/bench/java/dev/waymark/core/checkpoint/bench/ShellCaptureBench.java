package dev.waymark.core.checkpoint.bench;

import static dev.waymark.core.checkpoint.bench.BenchTools.deleteTree;
import static dev.waymark.core.checkpoint.bench.BenchTools.git;
import static dev.waymark.core.checkpoint.bench.BenchTools.median;
import static dev.waymark.core.checkpoint.bench.BenchTools.medianMillis;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Shell-change capture at 1,000, 10,000 and 100,000 files, in a clean git repository and in a
 * plain directory, against {@code git status} on the same tree measured in the same run (the
 * ratio's baseline). "First command" runs in a fresh JVM each time, with the launcher's JVM
 * options, as a new Waymark process would; the JVM's own start is not counted, its cold JIT is. Not JMH: a fresh process per sample
 * is the point of the first measurement.
 *
 * <p>{@code ShellCaptureBench --sizes=1000,10000,100000 --out=DIR}; it needs the {@code git}
 * program (the baseline and the repository variant).
 */
public final class ShellCaptureBench {
  private static final int FRESH_PROCESSES = 5;
  private static final int LATER_COMMANDS = 10;

  private ShellCaptureBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--child")) {
      child(Path.of(args[1]), Path.of(args[2]), args[3], Integer.parseInt(args[4]), args.length > 5);
      return;
    }
    BenchArgs parsed = BenchArgs.parse(args, List.of(1_000, 10_000, 100_000));
    List<Integer> sizes = parsed.sizes();
    Path out = parsed.out();
    Files.createDirectories(out);
    StringBuilder table = new StringBuilder();
    table.append(String.format(Locale.ROOT, "%-8s %-6s %10s %12s %12s %12s %12s %12s %8s %8s %8s %12s %12s %12s%n",
        "files", "tree", "git status", "first ever", "first/proc", "scan ahead", "after ahead", "later", "ratio1",
        "ratio1a", "ratio2", "shadow.git", "packed tree", "stat cache"));
    for (int size : sizes) {
      Path root = Files.createTempDirectory("waymark-shellbench-");
      try {
        Path project = root.resolve("project");
        ProjectGenerator.Project generated = ProjectGenerator.generate(project, size, 42);
        Path gitCopy = root.resolve("git-tree");
        // the same tree as a git repository, for the baseline and the packed size
        BenchTools.committedTree(gitCopy, size);
        git(gitCopy, "gc", "-q");
        long packed = sizeOf(gitCopy.resolve(".git/objects/pack"));
        double gitStatus = medianMillis(() -> git(gitCopy, "status", "--porcelain"), 5);

        for (String kind : List.of("git", "plain")) {
          Path tree = kind.equals("git") ? gitCopy : project;
          Path home = root.resolve("home-" + kind);
          String changed = generated.files().get(size / 2);
          // 1. the first command ever: an empty store
          double firstEver = runChild(tree, home, changed, 0, false)[0];
          long store = sizeOf(only(home, "shadow.git"));
          long cache = Files.size(only(home, "stat-cache.bin"));
          // 2. the first command of each later process: the stat cache is in the store
          List<Double> fresh = new ArrayList<>();
          double later = 0;
          for (int i = 0; i < FRESH_PROCESSES; i++) {
            double[] r = runChild(tree, home, changed, i == FRESH_PROCESSES - 1 ? LATER_COMMANDS : 0, false);
            fresh.add(r[0]);
            later = r[1];
          }
          double firstProcess = median(fresh);
          // 3. the first command of a process that took its scan ahead, as Waymark does when it opens a project
          List<Double> ahead = new ArrayList<>();
          List<Double> afterAhead = new ArrayList<>();
          for (int i = 0; i < FRESH_PROCESSES; i++) {
            double[] r = runChild(tree, home, changed, 0, true);
            afterAhead.add(r[0]);
            ahead.add(r[2]);
          }
          double firstAfterAhead = median(afterAhead);
          table.append(String.format(Locale.ROOT,
              "%-8d %-6s %8.1fms %10.1fms %10.1fms %10.1fms %10.1fms %10.1fms %7.2fx %7.2fx %7.2fx %10.2fMB %10.2fMB %10.2fMB%n",
              size, kind, gitStatus, firstEver, firstProcess, median(ahead), firstAfterAhead, later, firstProcess / gitStatus,
              firstAfterAhead / gitStatus, later / gitStatus, store / 1e6, packed / 1e6, cache / 1e6));
          System.out.print(table);
        }
      } finally {
        deleteTree(root);
      }
    }
    table.append(manyFiles(20_000));
    System.out.println();
    System.out.println(table);
    Files.writeString(out.resolve("shell-capture.txt"), table, StandardCharsets.UTF_8);
  }

  /** One fresh process: opens the store, runs one command changing one file (and then {@code later} more). */
  private static void child(Path project, Path home, String changed, int later, boolean ahead) throws Exception {
    try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      double aheadMillis = 0;
      if (ahead) {
        long t = System.nanoTime();
        store.prepareShellCapture(10L << 20).get();
        aheadMillis = (System.nanoTime() - t) / 1e6;
      }
      CheckpointTree tab = store.newTab();
      Turn turn = tab.begin();
      long t0 = System.nanoTime();
      command(turn, project.resolve(changed));
      double first = (System.nanoTime() - t0) / 1e6;
      List<Double> times = new ArrayList<>();
      for (int i = 0; i < later; i++) {
        long t = System.nanoTime();
        command(turn, project.resolve(changed));
        times.add((System.nanoTime() - t) / 1e6);
      }
      turn.finish(CheckpointStatus.DONE);
      System.out.println("RESULT " + first + " " + (times.isEmpty() ? 0 : median(times)) + " " + aheadMillis);
    }
  }

  /** What run_shell does around a command that appends a line to one file. */
  private static void command(Turn turn, Path file) throws IOException {
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(10L << 20);
    Files.writeString(file, "// edited\n", StandardOpenOption.APPEND);
    WorkTreeChanges changes = snapshot.recordChanges();
    if (changes.recorded().size() != 1) {
      throw new IllegalStateException("expected one change, got " + changes);
    }
  }

  private static double[] runChild(Path project, Path home, String changed, int later, boolean ahead) throws Exception {
    // the JVM options app/bin/waymark starts Waymark with (client compiler, serial collector, and the package the
    // jar's manifest opens): a new process as users get it
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx2g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "--add-opens", "java.base/sun.nio.fs=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), ShellCaptureBench.class.getName(), "--child",
        project.toString(), home.toString(), changed, Integer.toString(later)));
    if (ahead) {
      command.add("--ahead");
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("child failed: " + output);
    }
    for (String line : output.split("\n")) {
      if (line.startsWith("RESULT ")) {
        String[] parts = line.split(" ");
        return new double[] {Double.parseDouble(parts[1]), Double.parseDouble(parts[2]), Double.parseDouble(parts[3])};
      }
    }
    throw new IllegalStateException("no result: " + output);
  }

  /**
   * 20,000 files created by one command: record, undo and redo, each timed once (three rounds,
   * median), against git doing the same to the same files in the same run: {@code git add -A}
   * (hash and store them), {@code rm -rf} (delete them) and {@code git checkout} (write them
   * back right after they were deleted, which file systems make slower than a first write).
   */
  private static String manyFiles(int count) throws Exception {
    List<Double> record = new ArrayList<>();
    List<Double> undo = new ArrayList<>();
    List<Double> redo = new ArrayList<>();
    List<Double> gitAdd = new ArrayList<>();
    List<Double> remove = new ArrayList<>();
    List<Double> gitCheckout = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      Path gitRoot = Files.createTempDirectory("waymark-shellbench-git-");
      try {
        git(gitRoot, "init", "-q");
        generated(gitRoot, count);
        long t = System.nanoTime();
        git(gitRoot, "add", "-A");
        gitAdd.add((System.nanoTime() - t) / 1e6);
        git(gitRoot, "commit", "-q", "-m", "generated");
        t = System.nanoTime();
        deleteTree(gitRoot.resolve("gen"));
        remove.add((System.nanoTime() - t) / 1e6);
        t = System.nanoTime();
        git(gitRoot, "checkout", "--", "gen");
        gitCheckout.add((System.nanoTime() - t) / 1e6);
      } finally {
        deleteTree(gitRoot);
      }
      Path root = Files.createTempDirectory("waymark-shellbench-many-");
      try {
        Path project = Files.createDirectories(root.resolve("project"));
        try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(root.resolve("home")), RetentionPolicy.DEFAULT)) {
          CheckpointTree tab = store.newTab();
          Turn turn = tab.begin();
          WorkTreeSnapshot snapshot = turn.snapshotWorkTree(10L << 20);
          generated(project, count);
          long t = System.nanoTime();
          WorkTreeChanges changes = snapshot.recordChanges();
          turn.finish(CheckpointStatus.DONE);
          record.add((System.nanoTime() - t) / 1e6);
          if (changes.recorded().size() != count) {
            throw new IllegalStateException("recorded " + changes.recorded().size());
          }
          t = System.nanoTime();
          if (!tab.undo().applied()) {
            throw new IllegalStateException("undo not applied");
          }
          undo.add((System.nanoTime() - t) / 1e6);
          t = System.nanoTime();
          if (!tab.redo().applied()) {
            throw new IllegalStateException("redo not applied");
          }
          redo.add((System.nanoTime() - t) / 1e6);
        }
      } finally {
        deleteTree(root);
      }
    }
    return String.format(Locale.ROOT, "%n%d files created by one command (medians of 3): record %.0f ms (git add -A %.0f ms, "
        + "%.2fx), undo %.0f ms (rm -rf %.0f ms, %.2fx), redo %.0f ms (git checkout %.0f ms, %.2fx)%n",
        count, median(record), median(gitAdd), median(record) / median(gitAdd), median(undo), median(remove),
        median(undo) / median(remove), median(redo), median(gitCheckout), median(redo) / median(gitCheckout));
  }

  private static void generated(Path root, int count) throws IOException {
    for (int i = 0; i < count; i++) {
      Path file = root.resolve("gen/d" + (i / 200) + "/f" + i + ".txt");
      Files.createDirectories(file.getParent());
      Files.writeString(file, "generated " + i + "\n");
    }
  }

  /** The one file or directory named {@code name} under {@code dir}. */
  private static Path only(Path dir, String name) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.getFileName().toString().equals(name)).findFirst().orElseThrow();
    }
  }

  private static long sizeOf(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

}
