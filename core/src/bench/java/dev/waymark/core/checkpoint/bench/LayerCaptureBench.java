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
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Capture by construction (issue 25): what a sandboxed command's copy-on-write layer costs over
 * the command itself, in a fresh process issued at once (no walk, no scan ahead), against
 * {@code git status} on the same tree in the same run; and a command creating 20,000 files,
 * applied and recorded from its layer, against today's capture by observation of the same command.
 *
 * <p>Fresh processes are started twice over: with this bench's class path (classes read from
 * directories), and, given {@code --launcher=JAR} (the app's jar, its class-data archive {@code
 * waymark.jsa} beside it), as {@code app/bin/waymark} starts Waymark: the jar and the archive, with
 * the launcher's options. Only the bench's own classes come after the jar.
 *
 * <p>{@code LayerCaptureBench --sizes=100000 --out=DIR [--launcher=JAR]}; needs {@code git}, {@code
 * bwrap} and overlay mounts in user namespaces.
 */
public final class LayerCaptureBench {
  private static final int FRESH_PROCESSES = 5;
  private static final int LATER_COMMANDS = 5;
  private static final String ONE_FILE = "echo edited >> %s";
  private static final String MANY_FILES = "mkdir -p $(seq -f 'gen/d%%g' 0 99) && awk 'BEGIN { for (i = 0; i < %d; i++) "
      + "{ f = \"gen/d\" int(i / 200) \"/f\" i \".txt\"; print \"generated \" i > f; close(f) } }'";

  /** The median capture cost of later commands in each fresh process (see {@link #oneCommand}). */
  private static final List<Double> LATER = new ArrayList<>();

  private LayerCaptureBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--child")) {
      System.out.println("RESULT " + oneCommand(Path.of(args[1]), Path.of(args[2]), args[3], args[4]));
      return;
    }
    List<Integer> sizes = List.of(100_000);
    Path out = Path.of("target/bench");
    Optional<Launcher> launcher = Optional.empty();
    String launcherMissing = "";
    for (String arg : args) {
      if (arg.startsWith("--launcher=")) {
        Path jar = Path.of(arg.substring(11)).toAbsolutePath();
        launcher = Launcher.of(jar);
        launcherMissing = launcher.isPresent() ? "" : "not measured: no " + jar + " with its waymark.jsa beside it "
            + "(build the app first: mvn -B -DskipTests package)";
      }
      if (arg.startsWith("--sizes=")) {
        sizes = Arrays.stream(arg.substring(8).split(",")).map(String::trim).filter(v -> !v.isEmpty())
            .map(Integer::parseInt).toList(); // empty: only the 20,000 files
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring(6));
      }
    }
    Files.createDirectories(out);
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "%-8s %-6s %10s %12s %12s %12s %8s %12s %8s %12s %8s%n",
        "files", "tree", "git status", "sandboxed", "in a layer", "capture", "ratio", "launched", "ratio", "later", "ratio"));
    for (int size : sizes) {
      Path root = Files.createTempDirectory("waymark-layerbench-");
      try {
        Path plain = root.resolve("plain");
        ProjectGenerator.Project generated = ProjectGenerator.generate(plain, size, 42);
        Path repository = root.resolve("git");
        BenchTools.committedTree(repository, size);
        double gitStatus = medianMillis(() -> git(repository, "status", "--porcelain"), 5);
        String changed = generated.files().get(size / 2);
        for (Path tree : List.of(repository, plain)) {
          Path home = root.resolve("home-" + tree.getFileName());
          List<Double> bare = new ArrayList<>();
          List<Double> layered = new ArrayList<>();
          List<Double> launchedBare = new ArrayList<>();
          List<Double> launchedLayered = new ArrayList<>();
          for (int i = 0; i < FRESH_PROCESSES; i++) {
            bare.add(child(tree, home, changed, "sandboxed", Optional.empty()));
            layered.add(child(tree, home, changed, "layer", Optional.empty()));
            if (launcher.isPresent()) {
              launchedBare.add(child(tree, home, changed, "sandboxed", launcher));
              launchedLayered.add(child(tree, home, changed, "layer", launcher));
            }
          }
          double capture = median(layered) - median(bare);
          double launched = launcher.isPresent() ? median(launchedLayered) - median(launchedBare) : Double.NaN;
          double later = median(LATER);
          LATER.clear();
          table.append(String.format(Locale.ROOT, "%-8d %-6s %8.1fms %10.1fms %10.1fms %10.1fms %7.2fx %10.1fms %7.2fx %10.1fms %7.2fx%n",
              size, tree.getFileName(), gitStatus, median(bare), median(layered), capture, capture / gitStatus, launched,
              launched / gitStatus, later, later / gitStatus));
          System.out.print(table);
        }
      } finally {
        deleteTree(root);
      }
    }
    if (!launcherMissing.isEmpty()) {
      table.append("launched (as app/bin/waymark starts Waymark): ").append(launcherMissing).append('\n');
    }
    table.append(manyFiles(20_000));
    System.out.println();
    System.out.println(table);
    Files.writeString(out.resolve("layer-capture.txt"), table, StandardCharsets.UTF_8);
  }

  private static ShellSandbox sandbox(Path home) {
    ShellSandbox sandbox = ShellSandbox.detect(SandboxPolicy.protecting(home, home.resolve("config")), System.getenv("PATH"));
    if (!sandbox.confines()) {
      throw new IllegalStateException("no sandbox: " + sandbox.unavailable());
    }
    return sandbox;
  }

  /**
   * One fresh process: opens the store and runs one command appending to {@code changed}, in the
   * sandbox only ({@code how = sandboxed}) or in a layer, recorded; returns its milliseconds.
   */
  private static double oneCommand(Path project, Path home, String changed, String how) throws Exception {
    try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      ShellSandbox sandbox = sandbox(home);
      CheckpointTree tab = store.newTab();
      Turn turn = tab.begin();
      String command = String.format(Locale.ROOT, ONE_FILE, changed);
      long t = System.nanoTime();
      if (how.equals("layer")) {
        CommandCapture capture = layers(turn, sandbox);
        long probed = System.nanoTime();
        WorkTreeSnapshot layer = turn.snapshotWorkTree(capture, 10L << 20, CommandMark.random());
        ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", command), project.toRealPath(), false);
        long begun = System.nanoTime();
        run(layer.enter(wrapped.argv()), project);
        long ran = System.nanoTime();
        WorkTreeChanges changes = layer.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
        System.err.printf(Locale.ROOT, "PHASES probe %.1f begin %.1f run %.1f finish %.1f%n", (probed - t) / 1e6,
            (begun - probed) / 1e6, (ran - begun) / 1e6, (System.nanoTime() - ran) / 1e6);
        if (changes.recorded().size() != 1) {
          throw new IllegalStateException("expected one change, got " + changes);
        }
      } else {
        run(sandbox.wrap(List.of("/bin/sh", "-c", command), project.toRealPath(), false).argv(), project);
      }
      double millis = (System.nanoTime() - t) / 1e6;
      if (how.equals("layer")) {
        // the same command again in this process: what a layer costs once the JVM has run the path
        List<Double> later = new ArrayList<>();
        for (int i = 0; i < LATER_COMMANDS; i++) {
          long l = System.nanoTime();
          WorkTreeSnapshot layer = turn.snapshotWorkTree(layers(turn, sandbox), 10L << 20, CommandMark.random());
          ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", command), project.toRealPath(), false);
          long begun = System.nanoTime();
          run(layer.enter(wrapped.argv()), project);
          long ran = System.nanoTime();
          layer.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
          later.add((begun - l + System.nanoTime() - ran) / 1e6);
        }
        System.out.printf(Locale.ROOT, "LATER %.1f%n", median(later));
      }
      turn.finish(CheckpointStatus.DONE);
      return millis;
    }
  }

  /** The layered capture for {@code turn}'s sandboxed commands; fails where none can be mounted. */
  private static CommandCapture layers(Turn turn, ShellSandbox sandbox) {
    Turn.ShellCapture chosen = turn.shellCapture(sandbox.bwrap());
    if (chosen.noLayer().isPresent()) {
      throw new IllegalStateException("no layers here: " + chosen.noLayer().get());
    }
    return chosen.capture();
  }

  private static void run(List<String> argv, Path dir) throws Exception {
    Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("the command failed: " + output);
    }
  }

  /** The app's jar and its class-data archive, as {@code app/bin/waymark} runs them. */
  private record Launcher(Path jar, Path archive) {
    static Optional<Launcher> of(Path jar) {
      Path archive = jar.resolveSibling("waymark.jsa");
      return Files.isRegularFile(jar) && Files.isRegularFile(archive) ? Optional.of(new Launcher(jar, archive)) : Optional.empty();
    }

    /** The launcher's options; the jar first on the class path (the archive holds its classes), then this bench's classes. */
    List<String> options() throws Exception {
      Path benchClasses = Path.of(LayerCaptureBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:SharedArchiveFile=" + archive, "-Xshare:auto",
          "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "--add-opens", "java.base/sun.nio.fs=ALL-UNNAMED",
          "-cp", jar + File.pathSeparator + benchClasses);
    }
  }

  private static double child(Path project, Path home, String changed, String how, Optional<Launcher> launcher)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    if (launcher.isPresent()) {
      command.addAll(launcher.get().options());
    } else {
      command.addAll(List.of("-Xmx2g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "--add-opens",
          "java.base/sun.nio.fs=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
    }
    command.addAll(List.of(LayerCaptureBench.class.getName(), "--child", project.toString(), home.toString(), changed, how));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("child failed: " + output);
    }
    for (String line : output.split("\n")) {
      if (line.startsWith("PHASES ")) {
        System.out.println(line);
      }
      if (line.startsWith("LATER ") && launcher.isEmpty()) {
        LATER.add(Double.parseDouble(line.substring(6).trim()));
      }
      if (line.startsWith("RESULT ")) {
        return Double.parseDouble(line.substring(7).trim());
      }
    }
    throw new IllegalStateException("no result: " + output);
  }

  /**
   * One command creating {@code count} files: its layer applied and recorded, against today's
   * capture of the same command (snapshot before, comparison after), each the median of 3, the
   * command's own time left out of both.
   */
  private static String manyFiles(int count) throws Exception {
    List<Double> layered = new ArrayList<>();
    List<Double> observed = new ArrayList<>();
    String command = String.format(Locale.ROOT, MANY_FILES, count);
    for (int round = 0; round < 3; round++) {
      Path root = Files.createTempDirectory("waymark-layerbench-many-");
      try {
        Path project = Files.createDirectories(root.resolve("project")).toRealPath();
        Files.writeString(project.resolve("README"), "a project\n");
        try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(root.resolve("home")), RetentionPolicy.DEFAULT)) {
          ShellSandbox sandbox = sandbox(root.resolve("home"));
          CheckpointTree tab = store.newTab();
          Turn turn = tab.begin();
          CommandCapture capture = layers(turn, sandbox);
          long t = System.nanoTime();
          WorkTreeSnapshot layer = turn.snapshotWorkTree(capture, 10L << 20, CommandMark.random());
          ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", command), project, false);
          double before = (System.nanoTime() - t) / 1e6;
          run(layer.enter(wrapped.argv()), project);
          t = System.nanoTime();
          WorkTreeChanges changes = layer.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
          turn.finish(CheckpointStatus.DONE);
          layered.add(before + (System.nanoTime() - t) / 1e6);
          if (changes.recorded().size() != count) {
            throw new IllegalStateException("recorded " + changes.recorded().size());
          }
        }
        deleteTree(project.resolve("gen"));
        try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(root.resolve("home2")), RetentionPolicy.DEFAULT)) {
          ShellSandbox sandbox = sandbox(root.resolve("home2"));
          CheckpointTree tab = store.newTab();
          Turn turn = tab.begin();
          long t = System.nanoTime();
          WorkTreeSnapshot snapshot = turn.snapshotWorkTree(10L << 20);
          double before = (System.nanoTime() - t) / 1e6;
          run(sandbox.wrap(List.of("/bin/sh", "-c", command), project, false).argv(), project);
          t = System.nanoTime();
          WorkTreeChanges changes = snapshot.recordChanges();
          turn.finish(CheckpointStatus.DONE);
          observed.add(before + (System.nanoTime() - t) / 1e6);
          if (changes.recorded().size() != count) {
            throw new IllegalStateException("recorded " + changes.recorded().size());
          }
        }
      } finally {
        deleteTree(root);
      }
    }
    return String.format(Locale.ROOT, "%n%d files created by one sandboxed command (medians of 3): layer applied and "
        + "recorded %.0f ms, today's capture %.0f ms (%.2fx)%n", count, median(layered), median(observed),
        median(layered) / median(observed));
  }

}
