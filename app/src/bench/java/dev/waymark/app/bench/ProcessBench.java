package dev.waymark.app.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Whole Waymark processes, started as {@code app/bin/waymark} starts them (the packaged jar, its
 * class-data archive, the client compiler and the serial collector, a UTF-8 locale), on a generated
 * git repository of 1,000 and of 100,000 files (issue 37). The steps: the JVM floor
 * ({@code waymark --version}); a headless {@code exec} turn with no tools; a turn whose sandboxed
 * {@code run_shell} appends to one file ({@code --approval auto}); a turn with one {@code write_file};
 * {@code checkpoints undo} and {@code checkpoints redo} of that 1-file checkpoint; the interface's
 * first frame in a pseudo-terminal (made by {@code script}). Each step is compared with the floor of
 * the same run, and each step at the largest size with the same step at the smallest, against the
 * issue's targets.
 *
 * <p>The steps and the sizes run interleaved, round after round (for each step, every size, then
 * the next step), so a machine busy with other work slows them alike; medians of the rounds are
 * reported. A round before the measured ones, not counted, makes the store and warms the page cache.
 * When {@code strace} is on the path, each step then runs once more under {@code strace -f -c} and
 * the table gives its stat calls (stat, lstat, fstat, newfstatat, statx) and directory listings
 * (getdents64): a walk of the project is about one stat per file. Under strace the interface is
 * left running 8 s after its first frame, then ended with SIGTERM, so work it starts in the
 * background counts too.
 *
 * <p>Run only this bench (the jar and archive are built on the way; about 10 minutes at 3 rounds,
 * most of it generating and committing the 100,000 files):
 * {@code mvn -B -pl core,tui,app -Pbench verify -DskipTests -DskipITs -Dexec.skip
 * -Dbench.skipCheckpoint=true -Dbench.skipShell=true -Dbench.skipSandbox=true -Dbench.skipLayer=true
 * -Dbench.skipStart=true -Dbench.rounds=3} ({@code -DskipITs} also leaves out the npm install the
 * end-to-end tests need, {@code -Dexec.skip} tui's frame benchmark, the {@code bench.skip…}
 * properties core's benchmarks and StartBench; {@code -Dbench.processSizes=1000,10000} for other
 * sizes; {@code -Dbench.skipProcess=true} leaves this bench out of the other runs). Or, with the jar
 * and archive already built ({@code mvn -B -pl app -am package -DskipTests}), without Maven:
 * {@code java app/src/bench/java/dev/waymark/app/bench/ProcessBench.java app/target/waymark.jar
 * app/target/waymark.jsa app/target/process-bench 3 1000,100000}
 * (arguments: jar, archive, work directory, rounds, sizes; {@code -Dbench.strace=false} before the
 * class leaves out the strace pass). The table is also written to {@code process-bench.txt} in the
 * work directory.
 */
public final class ProcessBench {
  private ProcessBench() {}

  private static final String FLOOR = "JVM floor (--version)";
  private static final String NO_TOOLS = "exec, no tools";
  private static final String SHELL = "exec, sandboxed run_shell of 1 file";
  private static final String WRITE = "exec, write_file of 1 file";
  private static final String UNDO = "checkpoints undo, 1 file";
  private static final String REDO = "checkpoints redo, 1 file";
  private static final String FRAME = "first frame (pty)";
  private static final List<String> STEPS = List.of(FLOOR, NO_TOOLS, SHELL, WRITE, UNDO, REDO, FRAME);

  /** The file the turns change: in the middle of the tree. */
  private static String changed(int size) {
    return file(size / 2);
  }

  private static String file(int i) {
    return "src/d" + (i / 1000) + "/e" + (i / 50 % 20) + "/f" + i + ".txt";
  }

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    Path archive = Path.of(args[1]).toAbsolutePath();
    Path work = Files.createDirectories(Path.of(args[2]).toAbsolutePath());
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    List<Integer> sizes = args.length > 4
        ? Stream.of(args[4].split(",")).map(String::trim).map(Integer::parseInt).toList()
        : List.of(1_000, 100_000);
    boolean strace = !"false".equals(System.getProperty("bench.strace")) && onPath("strace");

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // exactly app/bin/waymark's options; it uses the archive only when it is newer than the jar
    List<String> launch = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    if (Files.isRegularFile(archive)
        && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0) {
      launch.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
    } else {
      System.out.println("no class-data archive newer than the jar at " + archive + ": launched without one, as the launcher would");
    }
    launch.addAll(List.of("-jar", jar.toString()));

    Path scripts = Files.createDirectories(work.resolve("scripts"));
    Path noTools = Files.writeString(scripts.resolve("no-tools.json"), "{\"responses\":[{\"text\":\"ok\"}]}");
    Map<Integer, Path> projects = new LinkedHashMap<>();
    Map<Integer, Path> homes = new LinkedHashMap<>();
    Map<Integer, Path> shellScripts = new LinkedHashMap<>();
    for (int size : sizes) {
      long t = System.nanoTime();
      Path root = work.resolve("files-" + size);
      deleteTree(root);
      projects.put(size, project(root.resolve("project"), size));
      homes.put(size, root.resolve("home"));
      shellScripts.put(size, Files.writeString(scripts.resolve("shell-" + size + ".json"),
          "{\"responses\":[{\"toolCalls\":[{\"name\":\"run_shell\",\"arguments\":{\"command\":\"echo appended >> "
              + changed(size) + "\"}}]},{\"text\":\"ok\"}]}"));
      System.out.printf(Locale.ROOT, "generated and committed a git repository of %,d files in %.0f s%n",
          size, (System.nanoTime() - t) / 1e9);
    }

    // results.get(step).get(size): the times of the rounds
    Map<String, Map<Integer, List<Long>>> results = new LinkedHashMap<>();
    for (int round = -1; round < rounds; round++) {
      for (String step : STEPS) {
        for (int size : sizes) {
          Path script = step.equals(WRITE) ? writeScript(scripts, size, round) : step.equals(SHELL) ? shellScripts.get(size) : noTools;
          long ms = step(step, launch, homes.get(size), projects.get(size), script, null);
          if (round >= 0) {
            results.computeIfAbsent(step, k -> new LinkedHashMap<>()).computeIfAbsent(size, k -> new ArrayList<>()).add(ms);
          }
        }
      }
    }

    Map<String, Map<Integer, long[]>> counts = new LinkedHashMap<>();
    if (strace) {
      for (String step : STEPS) {
        for (int size : sizes) {
          Path out = work.resolve("strace-" + size + ".txt");
          Files.deleteIfExists(out);
          Path script = step.equals(WRITE) ? writeScript(scripts, size, rounds) : step.equals(SHELL) ? shellScripts.get(size) : noTools;
          List<String> traced = concat(List.of("strace", "-f", "-qq", "-c", "-o", out.toString(),
              "-e", "trace=stat,lstat,fstat,newfstatat,statx,getdents64"), launch);
          step(step, traced, homes.get(size), projects.get(size), script, out);
          counts.computeIfAbsent(step, k -> new LinkedHashMap<>()).put(size, straceCounts(out));
        }
      }
    }

    String table = table(sizes, results, counts, rounds, strace);
    System.out.print(table);
    Files.writeString(work.resolve("process-bench.txt"), table);
  }

  /** Runs one step; milliseconds until it ends (the first frame: until it is on screen). */
  private static long step(String step, List<String> launch, Path home, Path project, Path script, Path straceOut)
      throws Exception {
    String dir = project.toString();
    return switch (step) {
      case FLOOR -> run(home, project, concat(launch, List.of("--version")));
      case NO_TOOLS, SHELL, WRITE -> run(home, project, concat(launch, List.of("exec", "-C", dir, "--provider", "scripted",
          "--script", script.toString(), "--approval", "auto", "go")));
      case UNDO -> run(home, project, concat(launch, List.of("checkpoints", "undo", "-C", dir)));
      case REDO -> run(home, project, concat(launch, List.of("checkpoints", "redo", "-C", dir)));
      case FRAME -> firstFrame(home, concat(launch, List.of("--provider", "scripted", "--script", script.toString(), dir)),
          straceOut != null);
      default -> throw new IllegalArgumentException(step);
    };
  }

  /** A script whose one {@code write_file} gives the changed file new content each time, so it is always a change. */
  private static Path writeScript(Path scripts, int size, int round) throws IOException {
    return Files.writeString(scripts.resolve("write-" + size + ".json"),
        "{\"responses\":[{\"toolCalls\":[{\"name\":\"write_file\",\"arguments\":{\"path\":\"" + changed(size)
            + "\",\"content\":\"written in round " + round + "\\n\"}}]},{\"text\":\"ok\"}]}");
  }

  /** A git repository of {@code size} files, 50 to a directory, committed with the git CLI. */
  private static Path project(Path dir, int size) throws Exception {
    for (int i = 0; i < size; i++) {
      Path file = dir.resolve(file(i));
      Files.createDirectories(file.getParent());
      Files.writeString(file, "line " + i + "\n");
    }
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "generated");
    return dir;
  }

  private static void git(Path dir, String... args) throws Exception {
    Process p = new ProcessBuilder(concat(List.of("git"), List.of(args))).directory(dir.toFile())
        .redirectErrorStream(true).start();
    byte[] output = p.getInputStream().readAllBytes();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("git " + String.join(" ", args) + " failed: " + new String(output, StandardCharsets.UTF_8));
    }
  }

  private static void environment(ProcessBuilder pb, Path home) {
    pb.environment().put("WAYMARK_HOME", home.toString());
    // as the launcher: Java takes the encoding of file names from the locale
    String locale = pb.environment().getOrDefault("LC_ALL", pb.environment().getOrDefault("LC_CTYPE",
        pb.environment().getOrDefault("LANG", "")));
    if (!locale.toLowerCase(Locale.ROOT).replace("-", "").contains("utf8")) {
      pb.environment().put("LC_ALL", "C.UTF-8");
    }
  }

  /** Milliseconds until the command ends; it must succeed. */
  private static long run(Path home, Path project, List<String> command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(project.toFile());
    environment(pb, home);
    long start = System.nanoTime();
    Process p = pb.start();
    byte[] output = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(output, StandardCharsets.UTF_8));
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    String text = new String(output, StandardCharsets.UTF_8);
    if (text.contains("not sandboxed") || text.contains("cannot start here")) {
      throw new IllegalStateException("the command did not run in the sandbox: " + text);
    }
    return ms;
  }

  /**
   * Milliseconds from starting the interface in a pseudo-terminal to its footer on screen. Traced,
   * it is left running 8 s more, then ended with SIGTERM so strace writes its counts.
   */
  private static long firstFrame(Path home, List<String> ui, boolean traced) throws Exception {
    String line = String.join(" ", ui.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
    ProcessBuilder pb = new ProcessBuilder("script", "-qfec", "stty rows 30 cols 100; exec " + line, "/dev/null")
        .redirectErrorStream(true);
    environment(pb, home);
    pb.environment().put("TERM", "xterm-256color");
    long start = System.nanoTime();
    Process p = pb.start();
    try (InputStream in = p.getInputStream()) {
      StringBuilder seen = new StringBuilder();
      byte[] buffer = new byte[8192];
      long deadline = start + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        int n = in.read(buffer);
        if (n < 0) {
          break;
        }
        seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        if (seen.indexOf("F1 help") >= 0) {
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          if (traced) {
            Thread.sleep(8_000);
            p.descendants().filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .forEach(ProcessHandle::destroy);
            Thread drain = new Thread(() -> {
              try {
                in.transferTo(OutputStreamNull.INSTANCE);
              } catch (IOException ignored) {
                // the terminal went away
              }
            });
            drain.setDaemon(true);
            drain.start();
            p.waitFor(30, TimeUnit.SECONDS);
          }
          return ms;
        }
      }
      throw new IllegalStateException("no frame; the terminal showed: " + seen);
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Discards what the traced interface still draws while it ends. */
  private static final class OutputStreamNull extends OutputStream {
    static final OutputStreamNull INSTANCE = new OutputStreamNull();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }

  /** Stat calls and directory listings from {@code strace -c}'s table; -1 each when it wrote none. */
  private static long[] straceCounts(Path out) throws IOException {
    if (!Files.isRegularFile(out)) {
      return new long[] {-1, -1};
    }
    long stats = 0;
    long listings = 0;
    for (String row : Files.readAllLines(out)) {
      String[] cells = row.trim().split("\\s+");
      if (cells.length < 5 || !cells[3].matches("\\d+")) {
        continue;
      }
      String call = cells[cells.length - 1];
      long calls = Long.parseLong(cells[3]);
      if (call.equals("getdents64")) {
        listings += calls;
      } else if (call.contains("stat")) {
        stats += calls;
      }
    }
    return new long[] {stats, listings};
  }

  private static String table(List<Integer> sizes, Map<String, Map<Integer, List<Long>>> results,
      Map<String, Map<Integer, long[]>> counts, int rounds, boolean strace) {
    StringBuilder out = new StringBuilder();
    int small = sizes.get(0);
    int large = sizes.get(sizes.size() - 1);
    out.append(String.format(Locale.ROOT, "%n%-38s", "step"));
    for (int size : sizes) {
      out.append(String.format(Locale.ROOT, " | %,d files: ms, - floor, / floor", size));
      if (strace) {
        out.append(", stats, listings");
      }
    }
    out.append(String.format(Locale.ROOT, " | %,d / %,d%n", large, small));
    for (String step : STEPS) {
      out.append(String.format(Locale.ROOT, "%-38s", step));
      for (int size : sizes) {
        long ms = median(results.get(step).get(size));
        long floor = median(results.get(FLOOR).get(size));
        out.append(String.format(Locale.ROOT, " | %6d %+6d %5.2fx", ms, ms - floor, (double) ms / floor));
        if (strace) {
          long[] c = counts.get(step).get(size);
          out.append(String.format(Locale.ROOT, " %7d %6d", c[0], c[1]));
        }
      }
      out.append(String.format(Locale.ROOT, " | %5.2fx%n",
          (double) median(results.get(step).get(large)) / median(results.get(step).get(small))));
    }

    out.append(String.format(Locale.ROOT, "%nTargets (issue 37) at %,d files, against the same run:%n", large));
    long floor = median(results.get(FLOOR).get(large));
    long noTools = median(results.get(NO_TOOLS).get(large));
    target(out, NO_TOOLS + " <= floor + 400 ms", median(results.get(NO_TOOLS).get(large)) - floor, 400);
    target(out, WRITE + " <= no-tool turn + 100 ms", median(results.get(WRITE).get(large)) - noTools, 100);
    target(out, SHELL + " <= no-tool turn + 150 ms", median(results.get(SHELL).get(large)) - noTools, 150);
    target(out, UNDO + " <= floor + 150 ms", median(results.get(UNDO).get(large)) - floor, 150);
    target(out, REDO + " <= floor + 150 ms", median(results.get(REDO).get(large)) - floor, 150);
    target(out, FRAME + " <= floor + 150 ms", median(results.get(FRAME).get(large)) - floor, 150);
    for (String step : STEPS) {
      if (step.equals(FLOOR)) {
        continue;
      }
      // judged as printed: 1.20x meets 1.2x
      double ratio = Math.round(100.0 * median(results.get(step).get(large)) / median(results.get(step).get(small))) / 100.0;
      out.append(String.format(Locale.ROOT, "  %-66s %6.2fx  %s%n", step + String.format(Locale.ROOT,
          " %,d files / %,d files <= 1.2x", large, small), ratio, ratio <= 1.2 ? "met" : "MISSED"));
    }
    out.append(String.format(Locale.ROOT, "%nmedians of %d interleaved rounds (after one not counted); %d cores; "
        + "load average %s; launched as app/bin/waymark launches the jar%n", rounds,
        Runtime.getRuntime().availableProcessors(), loadAverage()));
    if (strace) {
      out.append("stats: stat, lstat, fstat, newfstatat and statx calls of the whole process tree (strace -f -c, one run);"
          + " listings: getdents64\n");
    }
    return out.toString();
  }

  private static void target(StringBuilder out, String what, long measured, long limit) {
    out.append(String.format(Locale.ROOT, "  %-66s %+6d ms  %s%n", what, measured, measured <= limit ? "met" : "MISSED"));
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static boolean onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.forEach(p -> p.toFile().setWritable(true));
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
