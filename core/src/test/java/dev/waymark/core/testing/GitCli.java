package dev.waymark.core.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code git} program for the interoperability tests, cut off from the machine's
 * and the user's git configuration ({@code GIT_CONFIG_NOSYSTEM}, {@code GIT_CONFIG_GLOBAL=/dev/null})
 * and from any {@code GIT_*} variable the test run inherited.
 */
public final class GitCli {
  private GitCli() {}

  /** What one run printed and how it ended. */
  public record Result(List<String> command, int exit, byte[] out, String err) {
    public String text() {
      return new String(out, UTF_8);
    }

    /** The output split on NUL, for {@code -z} formats; the trailing empty piece is dropped. */
    public List<String> nulSeparated() {
      List<String> pieces = new ArrayList<>(List.of(text().split("\0", -1)));
      if (!pieces.isEmpty() && pieces.get(pieces.size() - 1).isEmpty()) {
        pieces.remove(pieces.size() - 1);
      }
      return pieces;
    }

    /** Non-empty output lines. */
    public List<String> lines() {
      List<String> lines = new ArrayList<>();
      for (String line : text().split("\n")) {
        if (!line.isEmpty()) {
          lines.add(line);
        }
      }
      return lines;
    }

    public Result ok() {
      if (exit != 0) {
        fail("%s exited with %d%nstdout: %s%nstderr: %s", String.join(" ", command), exit, text(), err);
      }
      return this;
    }
  }

  /** Fails the calling test, with a message saying how to fix it, when {@code git} cannot be run. */
  public static String requireGit() {
    Result version;
    try {
      version = run(Path.of("").toAbsolutePath(), Map.of(), "--version");
    } catch (UncheckedIOException e) {
      throw new AssertionError("The interoperability tests need the git program on PATH, and none could be run ("
          + e.getCause().getMessage() + "). Install git (apt-get install git; .ci/run does this on CI).", e);
    }
    if (version.exit() != 0 || !version.text().startsWith("git version")) {
      throw new AssertionError("`git --version` did not work (exit " + version.exit() + "): " + version.err());
    }
    return version.text().trim();
  }

  /** {@code git args...} in {@code cwd}, which must succeed. */
  public static Result ok(Path cwd, String... args) {
    return run(cwd, args).ok();
  }

  /** Runs git in {@code cwd}; never fails by itself on a non-zero exit. */
  public static Result run(Path cwd, String... args) {
    return run(cwd, Map.of(), args);
  }

  public static Result run(Path cwd, Map<String, String> extraEnv, String... args) {
    List<String> command = new ArrayList<>();
    command.add("git");
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("GIT_"));
    env.putAll(isolatedEnvironment());
    extraEnv.forEach((key, value) -> {
      if (value == null) {
        env.remove(key); // a null value unsets the variable
      } else {
        env.put(key, value);
      }
    });
    try {
      Process process = pb.start();
      process.getOutputStream().close();
      CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
      byte[] out = readAll(process.getInputStream());
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        fail("%s did not finish within 120 s", String.join(" ", command));
      }
      return new Result(command, process.exitValue(), out, new String(err.join(), UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Variables that keep git away from every configuration file but the repository's own. */
  public static Map<String, String> isolatedEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("GIT_AUTHOR_NAME", "Test User");
    env.put("GIT_AUTHOR_EMAIL", "user@example.com");
    env.put("GIT_COMMITTER_NAME", "Test User");
    env.put("GIT_COMMITTER_EMAIL", "user@example.com");
    return env;
  }

  /** {@code git --git-dir=<shadow> args...}, which must succeed. */
  public static Result shadow(Path shadowDir, String... args) {
    List<String> all = new ArrayList<>();
    all.add("--git-dir=" + shadowDir);
    all.addAll(List.of(args));
    return run(shadowDir, all.toArray(String[]::new)).ok();
  }

  /** The bytes of {@code ref:path} as {@code git show} prints them. */
  public static byte[] show(Path shadowDir, String ref, String path) {
    return shadow(shadowDir, "show", ref + ":" + path).out();
  }

  /** One entry of {@code git ls-tree}. */
  public record TreeEntry(String mode, String type, String id, String path) {}

  /** {@code git ls-tree -r -z --full-tree ref}, keyed by path, names exactly as stored. */
  public static Map<String, TreeEntry> lsTree(Path shadowDir, String ref) {
    Map<String, TreeEntry> entries = new LinkedHashMap<>();
    for (String record : shadow(shadowDir, "-c", "core.quotepath=off", "ls-tree", "-r", "-z", "--full-tree", ref).nulSeparated()) {
      int tab = record.indexOf('\t');
      String[] head = record.substring(0, tab).split(" ");
      String path = record.substring(tab + 1);
      entries.put(path, new TreeEntry(head[0], head[1], head[2], path));
    }
    return entries;
  }

  private static byte[] readAll(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
