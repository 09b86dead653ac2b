package dev.waymark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No class of the engine grows into a hub: every source file of core stays under 500 lines. A file
 * that would pass it is split by concern (a task, a value, a format) rather than let grow, as
 * {@code TabSession}, {@code CheckpointTree} and {@code RunShellTool} were.
 */
class ClassSizeTest {
  private static final int LIMIT = 500;

  @Test
  void everySourceFileOfCoreIsUnderFiveHundredLines() throws IOException {
    List<String> over;
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      over = files.filter(f -> f.toString().endsWith(".java")).map(ClassSizeTest::linesOver).filter(s -> !s.isEmpty()).toList();
    }
    assertThat(over).as("files of " + LIMIT + " lines or more").isEmpty();
  }

  private static String linesOver(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      long count = lines.count();
      return count >= LIMIT ? file + ": " + count : "";
    } catch (IOException e) {
      return file + ": unreadable (" + e.getMessage() + ")";
    }
  }
}
