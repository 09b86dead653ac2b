package dev.waymark.core.checkpoint.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The files a benchmark edits, and the edit an agent tool would make to each: a changed last line. */
final class Edits {
  private final Path project;
  private final List<String> paths;
  private final byte[][] originals;
  private int counter;

  Edits(Path project, List<String> paths) throws IOException {
    this.project = project;
    this.paths = List.copyOf(paths);
    this.originals = new byte[paths.size()][];
    for (int i = 0; i < paths.size(); i++) {
      originals[i] = Files.readAllBytes(project.resolve(paths.get(i)));
    }
  }

  List<String> paths() {
    return paths;
  }

  /** New content for file {@code i}, different from every earlier edit. */
  byte[] next(int i) {
    byte[] original = originals[i];
    byte[] tail = ("// edit " + (++counter) + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] content = new byte[original.length + tail.length];
    System.arraycopy(original, 0, content, 0, original.length);
    System.arraycopy(tail, 0, content, original.length, tail.length);
    return content;
  }

  /** Writes the next edit of every file, as a tool would, without recording anything. */
  void writeAll() throws IOException {
    for (int i = 0; i < paths.size(); i++) {
      Files.write(project.resolve(paths.get(i)), next(i));
    }
  }

  byte[] current(int i) throws IOException {
    return Files.readAllBytes(project.resolve(paths.get(i)));
  }
}
