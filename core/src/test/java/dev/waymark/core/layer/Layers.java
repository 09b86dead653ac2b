package dev.waymark.core.layer;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Runs commands in layers for the tests: the sandbox and layers this machine has (skipped without, failed in CI). */
final class Layers {
  private final ShellSandbox sandbox;
  private final LayerSupport support;
  final LayerJournal journal;

  Layers(Path layersRoot) {
    sandbox = Bwrap.required(SandboxPolicy.protecting(layersRoot.resolveSibling("data"), layersRoot.resolveSibling("config")));
    support = LayerSupport.detect(layersRoot, sandbox.bwrap().orElseThrow(), System.getenv("PATH"));
    if (!support.available()) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("no layers here: " + support.unavailable());
      }
      assumeTrue(false, "no layers here: " + support.unavailable());
    }
    journal = new LayerJournal(layersRoot);
  }

  LayerSupport support() {
    return support;
  }

  /** Runs {@code script} in a new layer of {@code project}; fails the test unless it exits 0. */
  Layer run(Path project, String script) throws IOException, InterruptedException {
    Layer layer = journal.begin(project.toRealPath(), "test", "mark");
    runIn(layer, script);
    return layer;
  }

  void runIn(Layer layer, String script) throws IOException, InterruptedException {
    ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", script), layer.project(), false);
    Process process = new ProcessBuilder(support.enter(layer, wrapped.argv())).redirectErrorStream(true)
        .redirectInput(new File("/dev/null")).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    wrapped.placeholders().forEach(p -> MOUNT_POINTS.add(layer.project().relativize(p).toString()));
    if (!process.waitFor(20, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new AssertionError("the command failed in its layer: " + output);
    }
  }

  /** Runs {@code script} in an isolated tab's {@code view} (the overlay with its own upper); returns what it printed. */
  String runIn(View view, String script) throws IOException, InterruptedException {
    ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", script), view.project(), false);
    var started = view.commandStarts();
    Process process = new ProcessBuilder(support.enter(view, wrapped.argv())).redirectErrorStream(true)
        .redirectInput(new File("/dev/null")).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(20, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new AssertionError("the command failed in the view: " + output);
    }
    view.afterCommand(new HashSet<>(wrapped.placeholders().stream()
        .map(p -> view.project().relativize(p).toString()).toList()), started);
    wrapped.removePlaceholders();
    return output;
  }

  /** The view as a command in it sees it, in {@link #tree}'s words (one-line contents; the sandbox's .waymark left out). */
  Map<String, String> treeSeenIn(View view) throws IOException, InterruptedException {
    String listing = runIn(view, "find . -mindepth 1 -path ./.waymark -prune -o -print | sort | while read p; do "
        + "if [ -L \"$p\" ]; then echo \"$p|link $(readlink \"$p\")\"; "
        + "elif [ -d \"$p\" ]; then echo \"$p|dir $(stat -c %a \"$p\")\"; "
        + "else echo \"$p|file $(stat -c %a \"$p\") $(cat \"$p\")\"; fi; done");
    Map<String, String> tree = new TreeMap<>();
    for (String line : listing.split("\n")) {
      int bar = line.indexOf('|');
      if (line.startsWith("./") && bar > 0) {
        tree.put(line.substring(2, bar), line.substring(bar + 1));
      }
    }
    return tree;
  }

  /** The view as its file tools read it ({@link View#locate}, {@link View#list}), in {@link #tree}'s words. */
  static Map<String, String> treeReadFrom(View view) throws IOException {
    Map<String, String> tree = new TreeMap<>();
    walk(view, "", tree);
    return tree;
  }

  private static void walk(View view, String dir, Map<String, String> tree) throws IOException {
    for (String name : view.list(dir)) {
      String rel = dir.isEmpty() ? name : dir + "/" + name;
      Path path = view.locate(rel).orElseThrow(() -> new AssertionError("listed but not found: " + rel));
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
      if (Files.isSymbolicLink(path)) {
        tree.put(rel, "link " + Files.readSymbolicLink(path));
      } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
        tree.put(rel, "dir " + Integer.toOctalString(mode));
        walk(view, rel, tree);
      } else {
        tree.put(rel, "file " + Integer.toOctalString(mode) + " " + Files.readString(path));
      }
    }
  }

  /** Runs {@code script} directly in {@code project} (the reference of what the layer must reproduce). */
  static void runPlain(Path project, String script) throws IOException, InterruptedException {
    Process process = new ProcessBuilder("/bin/sh", "-c", script).directory(project.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new AssertionError("the command failed: " + output);
    }
  }

  /** Every path below {@code root} with what it is: "dir 755", "file 644 content", "link target". */
  static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> tree = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path path : all.filter(p -> !p.equals(root)).toList()) {
        String rel = root.relativize(path).toString();
        int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
        if (Files.isSymbolicLink(path)) {
          tree.put(rel, "link " + Files.readSymbolicLink(path));
        } else if (Files.isDirectory(path)) {
          tree.put(rel, "dir " + Integer.toOctalString(mode));
        } else {
          tree.put(rel, "file " + Integer.toOctalString(mode) + " " + Files.readString(path));
        }
      }
    }
    return tree;
  }

  /** Copies a tree of files, directories and links with their modes. */
  static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path path : all.toList()) {
        Path target = to.resolve(from.relativize(path).toString());
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(target);
          Files.setAttribute(target, "unix:mode", Files.getAttribute(path, "unix:mode"));
        } else {
          Files.copy(path, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }

  /**
   * Returns once the file system's clock is past {@code layer}'s start: a write made then has a
   * later change time, as a user's write during the command does. Waits on that clock, which a
   * probe file in the layer's directory reads, not on a fixed sleep (a coarse clock ticks every few ms).
   */
  static void pastStart(Layer layer) throws IOException {
    Path probe = layer.directory().resolve("clock-probe");
    do {
      Files.writeString(probe, "");
      Thread.onSpinWait();
    } while (!layer.changedSince(probe));
    Files.delete(probe);
  }

  static final LayerApply.Recorder NO_RECORD = (path, current, after) -> {};

  /** The empty directories the sandbox mounts over (the project's missing .waymark): never a command's change. */
  static final Set<String> MOUNT_POINTS = ConcurrentHashMap.newKeySet();

  static LayerChanges read(Layer layer) throws IOException {
    return UpperReader.read(layer.upper(), layer.project(), MOUNT_POINTS);
  }
}
