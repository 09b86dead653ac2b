package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.ClassGraph;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * No ring of classes inside a package of this module, as core's {@code ClassRingTest} holds for
 * core: the rings that stay are listed with why, and a ring broken leaves the list.
 */
class ClassRingTest {
  private static final ClassGraph SOURCES = ClassGraph.ofSources(Path.of("src/main/java"));

  /** The rings that stay, as {@link ClassGraph#rings()} writes them, and why each is let be. */
  private static final Map<String, String> KNOWN = Map.of();

  @Test
  void everyRingIsKnownWithWhy() {
    assertThat(SOURCES.rings()).allMatch(KNOWN::containsKey);
  }

  @Test
  void everyKnownRingIsStillThere() {
    assertThat(SOURCES.rings()).containsAll(KNOWN.keySet());
  }
}
