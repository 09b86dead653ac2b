package dev.waymark.core.sandbox.bench;

import dev.waymark.core.sandbox.SandboxMode;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the sandbox adds to a shell command: {@code bash -c true} started and waited for from this
 * JVM as {@code run_shell} starts it, bare and inside the sandbox (the project, a writable cache,
 * Waymark's data hidden, its config read-only, no network), interleaved, medians. Writes
 * {@code sandbox.txt} to {@code --out}.
 *
 * <p>Run: {@code mvn -B -pl core -Pbench verify -DskipTests -Dbench.skipCheckpoint=true -Dbench.skipShell=true}
 */
public final class SandboxBench {
  private SandboxBench() {}

  public static void main(String[] args) throws Exception {
    int rounds = 200;
    Path out = Path.of("target/bench");
    for (String arg : args) {
      if (arg.startsWith("--rounds=")) {
        rounds = Integer.parseInt(arg.substring("--rounds=".length()));
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring("--out=".length()));
      }
    }
    Path base = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "waymark-sandbox-bench-");
    Path project = Files.createDirectories(base.resolve("project")).toRealPath();
    Files.createDirectories(project.resolve(".git"));
    Path data = Files.createDirectories(base.resolve("data"));
    Path config = Files.createDirectories(base.resolve("config"));
    Path cache = Files.createDirectories(base.resolve("cache"));
    SandboxPolicy policy = new SandboxPolicy(SandboxMode.REQUIRED, List.of(cache), false, false,
        List.of(data), List.of(config));
    ShellSandbox sandbox = ShellSandbox.detect(policy, System.getenv("PATH"));
    if (!sandbox.confines()) {
      throw new IllegalStateException("no sandbox here: " + sandbox.unavailable());
    }
    List<String> bare = List.of("/bin/bash", "-c", "true");
    for (int i = 0; i < 20; i++) { // warm the JVM's process start
      run(bare, project);
      run(sandbox.wrap(bare, project, false).argv(), project);
    }
    long[] plain = new long[rounds];
    long[] boxed = new long[rounds];
    for (int i = 0; i < rounds; i++) {
      plain[i] = run(bare, project);
      boxed[i] = run(sandbox.wrap(bare, project, false).argv(), project); // wrap included: it is per command
    }
    double plainMs = median(plain) / 1e6;
    double boxedMs = median(boxed) / 1e6;
    String report = String.format(Locale.ROOT, "sandbox overhead per command, medians of %d interleaved runs (bash -c true)%n"
        + "bare: %.2f ms%nin the sandbox: %.2f ms%noverhead: %.2f ms%nratio: %.2fx%n", rounds, plainMs, boxedMs,
        boxedMs - plainMs, boxedMs / plainMs);
    System.out.print(report);
    Files.createDirectories(out);
    Files.writeString(out.resolve("sandbox.txt"), report);
  }

  private static long run(List<String> argv, Path dir) throws IOException, InterruptedException {
    long start = System.nanoTime();
    Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
        .redirectInput(new File("/dev/null")).start();
    p.getInputStream().readAllBytes();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(argv + " failed");
    }
    return System.nanoTime() - start;
  }

  private static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2.0;
  }
}
