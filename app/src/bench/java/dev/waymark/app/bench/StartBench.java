package dev.waymark.app.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How long the packaged jar takes to start under each set of JVM options: to the interface's first
 * frame (in a pseudo-terminal made by {@code script}), and a headless {@code checkpoints undo} and
 * {@code redo} on a project of 1,000 files. The configurations run interleaved, round after round,
 * so a machine busy with other work slows them alike; the median of the rounds is reported.
 *
 * The distribution's {@code bin/waymark} (its own runtime and archive, issue 56) runs beside them
 * when given; every row is also given as a ratio to {@code app/bin/waymark}'s options, the baseline.
 *
 * <p>Run: {@code mvn -B -pl core,tui,app -Pbench verify -Dexec.skip -Dbench.skipProcess=true -Dtest=none -Dit.test=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false}
 * (arguments: jar, archive, work directory, rounds, and the distribution's launcher if any).
 */
public final class StartBench {
  private static final String BASELINE = "AppCDS + C1 + serial";
  private static final String DIST = "distribution";

  private StartBench() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    Path archive = Path.of(args[1]);
    Path work = Files.createDirectories(Path.of(args[2]));
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 7;
    Path project = project(work.resolve("project"));
    Path home = work.resolve("home");
    Path script = work.resolve("script.json");
    Files.writeString(script, "{\"responses\":[{\"toolCalls\":[{\"name\":\"write_file\",\"arguments\":"
        + "{\"path\":\"d1/f1.txt\",\"content\":\"changed\\n\"}}]},{\"text\":\"ok\"}]}");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // built when the distribution is (-Pdist, or a verify that runs the ITs)
    Optional<Path> dist = args.length > 4 ? Optional.of(Path.of(args[4])).filter(Files::isExecutable) : Optional.empty();
    Map<String, List<String>> options = new LinkedHashMap<>();
    options.put("default", List.of());
    options.put("serial GC", List.of("-XX:+UseSerialGC"));
    options.put("C1 only", List.of("-XX:TieredStopAtLevel=1"));
    options.put("C1 + serial", List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    List<String> cds = List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    options.put("AppCDS", cds);
    options.put("AppCDS + serial", concat(cds, List.of("-XX:+UseSerialGC")));
    options.put("AppCDS + C1", concat(cds, List.of("-XX:TieredStopAtLevel=1")));
    options.put(BASELINE, concat(cds, List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")));
    // what starts Waymark in each configuration; the arguments follow
    Map<String, List<String>> configs = new LinkedHashMap<>();
    options.forEach((name, jvm) -> configs.put(name, concat(concat(List.of(java), jvm), List.of("-jar", jar.toString()))));
    dist.ifPresent(launcher -> configs.put(DIST, List.of(launcher.toString())));
    // the first turn makes the project's store, and the distribution's first start its archive: neither is measured
    List<String> turn = List.of("exec", "-C", project.toString(), "--script", script.toString(), "--approval", "yolo", "change a file");
    run(home, concat(configs.get("default"), turn), 120);
    if (configs.containsKey(DIST)) {
      run(home, concat(configs.get(DIST), turn), 120);
    }

    Map<String, List<Long>> frame = new LinkedHashMap<>();
    Map<String, List<Long>> undo = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (var entry : configs.entrySet()) {
        List<String> start = entry.getValue();
        undo.computeIfAbsent(entry.getKey(), k -> new ArrayList<>())
            .add(run(home, concat(start, List.of("checkpoints", "undo", "-C", project.toString())), 60));
        run(home, concat(start, List.of("checkpoints", "redo", "-C", project.toString())), 60);
        frame.computeIfAbsent(entry.getKey(), k -> new ArrayList<>()).add(firstFrame(home, start, project, script));
      }
    }
    long baseFrame = median(frame.get(BASELINE));
    long baseUndo = median(undo.get(BASELINE));
    System.out.printf("%-24s %18s %8s %26s %8s%n", "JVM options", "first frame (ms)", "ratio", "checkpoints undo, 1k (ms)", "ratio");
    for (String name : configs.keySet()) {
      long f = median(frame.get(name));
      long u = median(undo.get(name));
      System.out.printf("%-24s %18d %7.2fx %26d %7.2fx%n", name, f, (double) f / baseFrame, u, (double) u / baseUndo);
    }
    if (dist.isEmpty() && args.length > 4) {
      System.out.println("distribution: not measured, " + args[4] + " is not built (add -Pdist)");
    }
    System.out.println("medians of " + rounds + " interleaved rounds; " + Runtime.getRuntime().availableProcessors() + " cores; "
        + "ratio: time / the time with " + BASELINE + " (app/bin/waymark's options)");
  }

  private static Path project(Path dir) throws IOException {
    for (int i = 0; i < 1000; i++) {
      Path file = dir.resolve("d" + (i % 20)).resolve("f" + i + ".txt");
      Files.createDirectories(file.getParent());
      Files.writeString(file, "line " + i + "\n");
    }
    return dir;
  }

  /** Milliseconds until the command ends; it must succeed. */
  private static long run(Path home, List<String> command, int timeoutSeconds) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("WAYMARK_HOME", home.toString());
    long start = System.nanoTime();
    Process p = pb.start();
    byte[] output = p.getInputStream().readAllBytes();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(output, StandardCharsets.UTF_8));
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  /** Milliseconds from starting the interface in a pseudo-terminal to its footer on screen. */
  private static long firstFrame(Path home, List<String> waymark, Path project, Path script) throws Exception {
    List<String> ui = concat(waymark, List.of("--script", script.toString(), project.toString()));
    String line = String.join(" ", ui.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
    ProcessBuilder pb = new ProcessBuilder("script", "-qfec", "stty rows 30 cols 100; exec " + line, "/dev/null")
        .redirectErrorStream(true);
    pb.environment().put("WAYMARK_HOME", home.toString());
    pb.environment().put("TERM", "xterm-256color");
    long start = System.nanoTime();
    Process p = pb.start();
    try (InputStream in = p.getInputStream()) {
      StringBuilder seen = new StringBuilder();
      byte[] buffer = new byte[8192];
      long deadline = start + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        int n = in.read(buffer);
        if (n < 0) {
          break;
        }
        seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        if (seen.indexOf("F1 help") >= 0) {
          return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }
      }
      throw new IllegalStateException("no frame; the terminal showed: " + seen);
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
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
}
