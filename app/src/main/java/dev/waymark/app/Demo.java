package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code waymark --demo}: a copy of a small bundled project in a temporary directory, driven by
 * a bundled script instead of a model, so a newcomer can try tabs, edits, browsing, undo, redo,
 * branching and diffs with no key and no network.
 */
final class Demo {
  private static final String ROOT = "demo/";

  private Demo() {}

  record Prepared(Path project, Path script) {}

  /** A fresh copy of the demo project, remembered in {@code home} for {@code --demo --continue}. */
  static Prepared prepare(WaymarkHome home) {
    Prepared prepared = prepare();
    try {
      // it names a directory of the user's: as private as everything else Waymark keeps
      WaymarkHome.createPrivateDirectories(home.root());
      WaymarkHome.replacePrivate(lastFile(home),
          (prepared.project().getParent().toString() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not remember where the demo is: " + e.getMessage(), e);
    }
    return prepared;
  }

  /**
   * The copy the last {@code --demo} made, to continue it.
   *
   * @throws IllegalStateException when there is none, or it was deleted
   */
  static Prepared last(WaymarkHome home) {
    Path dir;
    try {
      dir = Path.of(Files.readString(lastFile(home), StandardCharsets.UTF_8).strip());
    } catch (IOException | InvalidPathException e) {
      throw new IllegalStateException("There is no demo to continue; `waymark --demo` starts one.");
    }
    Prepared prepared = new Prepared(dir.resolve("greeter"), dir.resolve("demo-script.json"));
    if (!Files.isDirectory(prepared.project()) || !Files.isRegularFile(prepared.script())) {
      throw new IllegalStateException("The last demo's project is gone from " + dir + "; `waymark --demo` starts a new one.");
    }
    return prepared;
  }

  private static Path lastFile(WaymarkHome home) {
    return home.root().resolve("demo-last.txt");
  }

  static Prepared prepare() {
    try {
      Path dir = Files.createTempDirectory("waymark-demo-");
      Path project = Files.createDirectories(dir.resolve("greeter"));
      for (String name : new String(read("files.txt"), StandardCharsets.UTF_8).split("\n")) {
        if (!name.isBlank()) {
          Files.write(project.resolve(name.trim()), read("project/" + name.trim()));
        }
      }
      Path script = dir.resolve("demo-script.json");
      Files.write(script, read("script.json"));
      return new Prepared(project, script);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not set up the demo project: " + e.getMessage(), e);
    }
  }

  private static byte[] read(String name) throws IOException {
    try (InputStream in = Demo.class.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        throw new IOException("the demo's " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    }
  }

  static List<String> welcome(Path project) {
    return List.of(
        "Welcome to the Waymark demo. A copy of a tiny project is in " + project + ", and a scripted model answers "
            + "(whatever you type, it makes the next of three changes). Try:",
        "  1. type anything and press Enter: it proposes an edit; Enter allows it once, and the turn becomes checkpoint #1",
        "  2. again, twice: tests (#2), then the README (#3)",
        "  3. Ctrl+B / Ctrl+F (or Alt+← / Alt+→) browse the checkpoints; nothing on disk changes",
        "  4. /undo, /redo, /diff 0, /checkpoint (the tree), /rewind (or Esc Esc) to pick a prompt to go back to",
        "  5. while viewing an earlier checkpoint, send a message: it branches from there",
        "  6. Ctrl+T opens a second tab with its own checkpoints; Alt+1 comes back. F1 lists every key.",
        "  `waymark --demo --continue` goes on from where you leave it.");
  }
}
