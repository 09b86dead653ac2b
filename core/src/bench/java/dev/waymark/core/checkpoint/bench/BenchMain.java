package dev.waymark.core.checkpoint.bench;

import dev.waymark.core.checkpoint.BenchAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs the Waymark and baseline benchmarks in one go and prints the comparison table.
 *
 * <p>Arguments: {@code --sizes=1000,10000,100000} (project sizes), {@code --quick=true} (fewer
 * and shorter iterations, for a smoke test), {@code --out=DIR} (JMH JSON results, the table, and
 * the sandbox home the forks run with).
 *
 * <p>The forked JVMs run with {@code user.home} set to a sandbox whose git config files carry a
 * marker: each trial fails if JGit sees it, and after the run the sandbox and the real home are
 * checked for a {@code .config/jgit} that JGit would have written.
 */
public final class BenchMain {
  private static final int SLOW_BASELINE = 100_000;
  private static final String[] OPERATIONS = {"create", "undo", "redo"};
  private static final int[] CHANGED = {1, 10};

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new TreeMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("usage: --sizes=1000,10000,100000 --quick=false --out=DIR");
      }
      opts.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    List<Integer> sizes = Arrays.stream(opts.getOrDefault("sizes", "1000,10000,100000").split(","))
        .map(String::trim).filter(s -> !s.isEmpty()).map(Integer::valueOf).sorted().collect(Collectors.toList());
    boolean quick = Boolean.parseBoolean(opts.getOrDefault("quick", "false"));
    Path out = Files.createDirectories(Path.of(opts.getOrDefault("out", "target/bench")).toAbsolutePath());

    Path realJGitConfig = Path.of(System.getProperty("user.home"), ".config", "jgit");
    String realJGitBefore = fingerprint(realJGitConfig);
    Path sandbox = sandboxHome(out.resolve("sandbox-home"));
    String control = controlCheck(sandbox);

    Instant started = Instant.now();
    List<RunResult> results = new ArrayList<>();
    String[] all = sizes.stream().map(String::valueOf).toArray(String[]::new);
    String[] fastBaseline = sizes.stream().filter(s -> s < SLOW_BASELINE).map(String::valueOf).toArray(String[]::new);
    String[] slowBaseline = sizes.stream().filter(s -> s >= SLOW_BASELINE).map(String::valueOf).toArray(String[]::new);

    // Waymark: milliseconds per operation, so plenty of samples in short iterations.
    results.addAll(run(out, "waymark", WaymarkBenchmark.class, all, sandbox, quick ? 1 : 3, 1, quick ? 2 : 5, 1));
    // Baseline below 100k files: tens to hundreds of ms per operation.
    if (fastBaseline.length > 0) {
      results.addAll(run(out, "baseline", BaselineBenchmark.class, fastBaseline, sandbox, quick ? 1 : 2, 1, quick ? 2 : 5, 2));
    }
    // Baseline at 100k files: seconds per operation; each 1 s iteration is one sample.
    if (slowBaseline.length > 0) {
      results.addAll(run(out, "baseline-100k", BaselineBenchmark.class, slowBaseline, sandbox, quick ? 1 : 2, 1, quick ? 2 : 5, 1));
    }
    // The table first, saved at once; then the re-check, which only runs when scaling looks off.
    String table = table(results, sizes);
    Files.writeString(out.resolve("results.txt"), table, StandardCharsets.UTF_8);
    System.out.println();
    System.out.println(table);
    String recheck;
    try {
      recheck = recheckScaling(out, results, sizes, sandbox, quick);
    } catch (RunnerException | RuntimeException e) {
      recheck = "\nRe-check failed: " + e + "\n";
    }
    Duration took = Duration.between(started, Instant.now());

    StringBuilder report = new StringBuilder(table);
    report.append(recheck);
    report.append('\n').append(String.format(Locale.ROOT, "Benchmark wall time: %d min %02d s%n", took.toMinutes(), took.toSecondsPart()));
    report.append(isolationReport(control, sandbox, realJGitConfig, realJGitBefore));
    System.out.println();
    System.out.println(report);
    Files.writeString(out.resolve("results.txt"), report, StandardCharsets.UTF_8);
    System.out.println("(table saved to " + out.resolve("results.txt") + ", JMH JSON beside it)");
  }

  private static Collection<RunResult> run(Path out, String name, Class<?> benchmark, String[] sizes, Path sandbox,
      int warmups, int warmupSeconds, int measurements, int measurementSeconds) throws RunnerException {
    ChainedOptionsBuilder options = new OptionsBuilder()
        .include(benchmark.getName().replace(".", "\\.") + "\\.")
        .param("files", sizes)
        .param("changed", "1", "10")
        .mode(Mode.SampleTime)
        .timeUnit(TimeUnit.MILLISECONDS)
        .forks(1)
        .warmupIterations(warmups)
        .warmupTime(TimeValue.seconds(warmupSeconds))
        .measurementIterations(measurements)
        .measurementTime(TimeValue.seconds(measurementSeconds))
        .jvmArgsAppend("-Xmx2g", "-Duser.home=" + sandbox)
        .shouldFailOnError(true)
        .resultFormat(ResultFormatType.JSON)
        .result(out.resolve("jmh-" + name + ".json").toString());
    return new Runner(options.build()).run();
  }

  /**
   * When Waymark's 1-file create or undo at 100,000 files looks more than 1.5x slower than at
   * 1,000, measures both sizes again in the order 1k, 100k, 1k, 100k: on a shared machine the
   * background load changes between forks that ran minutes apart, and sub-millisecond file
   * operations feel it. Reports each round; the main table above is left as measured.
   */
  private static String recheckScaling(Path out, List<RunResult> results, List<Integer> sizes, Path sandbox,
      boolean quick) throws RunnerException {
    if (!sizes.contains(1_000) || !sizes.contains(100_000)) {
      return "";
    }
    StringBuilder r = new StringBuilder();
    for (String op : new String[] {"create", "undo"}) {
      Double small = median(results, "WaymarkBenchmark." + op, 1_000, 1);
      Double large = median(results, "WaymarkBenchmark." + op, 100_000, 1);
      if (small == null || large == null || large / small <= 1.5) {
        continue;
      }
      r.append(String.format(Locale.ROOT, "%nRe-check of Waymark %s 1 file (%.2f× in the table), 1k and 100k measured alternately:%n",
          op, large / small));
      for (int round = 1; round <= 2; round++) {
        List<RunResult> again = new ArrayList<>();
        for (String size : new String[] {"1000", "100000"}) {
          ChainedOptionsBuilder options = new OptionsBuilder()
              .include(WaymarkBenchmark.class.getName().replace(".", "\\.") + "\\." + op + "$")
              .param("files", size).param("changed", "1")
              .mode(Mode.SampleTime).timeUnit(TimeUnit.MILLISECONDS)
              .forks(1).warmupIterations(quick ? 1 : 3).warmupTime(TimeValue.seconds(1))
              .measurementIterations(quick ? 2 : 5).measurementTime(TimeValue.seconds(1))
              .jvmArgsAppend("-Xmx2g", "-Duser.home=" + sandbox).shouldFailOnError(true)
              .resultFormat(ResultFormatType.JSON)
              .result(out.resolve("jmh-recheck-" + op + "-" + round + "-" + size + ".json").toString());
          again.addAll(new Runner(options.build()).run());
        }
        Double a = median(again, "WaymarkBenchmark." + op, 1_000, 1);
        Double z = median(again, "WaymarkBenchmark." + op, 100_000, 1);
        r.append(String.format(Locale.ROOT, "  round %d: %,d files %.3f ms, %,d files %.3f ms: %.2f×%n",
            round, 1_000, a, 100_000, z, z / a));
      }
    }
    return r.toString();
  }

  private static Double median(List<RunResult> results, String benchmark, int files, int changed) {
    for (RunResult r : results) {
      if (r.getParams().getBenchmark().endsWith(benchmark)
          && r.getParams().getParam("files").equals(String.valueOf(files))
          && r.getParams().getParam("changed").equals(String.valueOf(changed))) {
        return r.getPrimaryResult().getStatistics().getPercentile(50);
      }
    }
    return null;
  }

  // ------------------------------------------------------------------------------ the table

  private record Key(String system, String operation, int files, int changed) {}

  static String table(Collection<RunResult> results, List<Integer> sizes) {
    Map<Key, Statistics> stats = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      String method = label.substring(label.lastIndexOf('.') + 1);
      String system = label.contains("WaymarkBenchmark") ? "waymark" : "baseline";
      stats.put(new Key(system, method, Integer.parseInt(r.getParams().getParam("files")),
          Integer.parseInt(r.getParams().getParam("changed"))), r.getPrimaryResult().getStatistics());
    }
    StringBuilder t = new StringBuilder();
    t.append("Medians in ms (JMH SampleTime; n = samples). ratio = baseline / Waymark.\n\n");
    t.append(String.format(Locale.ROOT, "%8s  %-16s %12s %7s %10s %14s %5s %10s%n",
        "files", "operation", "Waymark p50", "n", "p90", "baseline p50", "n", "ratio"));
    for (int size : sizes) {
      for (int changed : CHANGED) {
        for (String op : OPERATIONS) {
          Statistics w = stats.get(new Key("waymark", op, size, changed));
          Statistics b = stats.get(new Key("baseline", op, size, changed));
          t.append(String.format(Locale.ROOT, "%8s  %-16s %12s %7s %10s %14s %5s %10s%n",
              String.format(Locale.ROOT, "%,d", size), op + " " + changed + (changed == 1 ? " file" : " files"),
              ms(w), n(w), w == null ? "-" : ms(w.getPercentile(90)), ms(b), n(b),
              w == null || b == null ? "-" : String.format(Locale.ROOT, "%.0f×", b.getPercentile(50) / w.getPercentile(50))));
        }
      }
    }
    int small = sizes.get(0);
    int large = sizes.get(sizes.size() - 1);
    if (small != large) {
      t.append(String.format(Locale.ROOT, "%nWaymark's own scaling, median at %,d files / median at %,d files:%n", large, small));
      for (int changed : CHANGED) {
        for (String op : OPERATIONS) {
          Statistics a = stats.get(new Key("waymark", op, small, changed));
          Statistics z = stats.get(new Key("waymark", op, large, changed));
          if (a != null && z != null) {
            t.append(String.format(Locale.ROOT, "  %-16s %.2f×%n", op + " " + changed + (changed == 1 ? " file" : " files"),
                z.getPercentile(50) / a.getPercentile(50)));
          }
        }
      }
    }
    if (sizes.contains(100_000) && sizes.contains(1_000)) {
      t.append("\nTargets (1-file create and 1-file undo at 100,000 files):\n");
      for (String op : new String[] {"create", "undo"}) {
        Statistics w = stats.get(new Key("waymark", op, 100_000, 1));
        Statistics b = stats.get(new Key("baseline", op, 100_000, 1));
        Statistics w1k = stats.get(new Key("waymark", op, 1_000, 1));
        if (w == null || b == null || w1k == null) {
          continue;
        }
        double median = w.getPercentile(50);
        double ratio = b.getPercentile(50) / median;
        double scaling = median / w1k.getPercentile(50);
        t.append(String.format(Locale.ROOT, "  %-7s median %.2f ms <= 10 ms: %s;  %.0f× faster than baseline >= 30×: %s;  %.2f× its 1,000-file time <= 1.5×: %s%n",
            op, median, median <= 10 ? "MET" : "MISSED", ratio, ratio >= 30 ? "MET" : "MISSED",
            scaling, scaling <= 1.5 ? "MET" : "MISSED"));
      }
    }
    return t.toString();
  }

  private static String ms(Statistics s) {
    return s == null ? "-" : ms(s.getPercentile(50));
  }

  private static String ms(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
        : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String n(Statistics s) {
    return s == null ? "-" : String.valueOf(s.getN());
  }

  // -------------------------------------------------------------------------- JGit isolation

  /** A home whose every git config file JGit might read sets the marker. */
  private static Path sandboxHome(Path home) throws IOException {
    ProjectGenerator.deleteTree(home);
    String marker = "[" + BenchAccess.MARKER_SECTION + "]\n\t" + BenchAccess.MARKER_KEY + " = the user's git config was read\n"
        + "[core]\n\tautocrlf = true\n[commit]\n\tgpgsign = true\n";
    Files.createDirectories(home.resolve(".config/git"));
    Files.writeString(home.resolve(".gitconfig"), marker, StandardCharsets.UTF_8);
    Files.writeString(home.resolve(".config/git/config"), marker, StandardCharsets.UTF_8);
    return home;
  }

  /**
   * Shows that the sandbox catches a leak: with JGit's default SystemReader (no isolation) and
   * the sandbox as home, the user config carries the marker and the JGit config file lies under
   * the sandbox. Runs in this JVM, which measures nothing; the forks install the isolation.
   */
  private static String controlCheck(Path sandbox) throws Exception {
    FS fs = FS.DETECTED.newInstance();
    fs.setUserHome(sandbox.toFile());
    FileBasedConfig user = SystemReader.getInstance().openUserConfig(null, fs);
    user.load();
    FileBasedConfig jgit = SystemReader.getInstance().openJGitConfig(null, fs);
    boolean leaks = BenchAccess.leaked(user);
    return "control without isolation: user config " + (leaks ? "shows the marker" : "does NOT show the marker (control broken)")
        + ", JGit would save to " + jgit.getFile();
  }

  /** Every file under {@code dir} with its size and modification time; empty when there is none. */
  private static String fingerprint(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return "";
    }
    try (var walk = Files.walk(dir)) {
      return walk.map(p -> {
        try {
          return p + " " + Files.size(p) + " " + Files.getLastModifiedTime(p);
        } catch (IOException e) {
          return p + " ?";
        }
      }).sorted().collect(Collectors.joining("\n"));
    }
  }

  private static String isolationReport(String control, Path sandbox, Path realJGitConfig, String realBefore)
      throws IOException {
    boolean sandboxWritten = Files.exists(sandbox.resolve(".config/jgit"));
    String realNow = fingerprint(realJGitConfig);
    StringBuilder r = new StringBuilder("\nJGit isolation:\n");
    r.append("  ").append(control).append('\n');
    r.append("  every trial (Waymark and baseline) checked that JGit's user, system and jgit configs read empty"
        + " with the sandbox home (a leak fails the run)\n");
    r.append("  sandbox ").append(sandbox.resolve(".config/jgit")).append(sandboxWritten ? ": WRITTEN (leak)" : ": not written").append('\n');
    r.append("  real ").append(realJGitConfig).append(": ")
        .append(realBefore.equals(realNow) ? (realNow.isEmpty() ? "not written" : "existed before the run, unchanged")
            : realBefore.isEmpty() ? "CREATED during the run (leak)" : "CHANGED during the run (leak)").append('\n');
    return r.toString();
  }
}
