package dev.waymark.app;

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
  private static final Map<String, String> KNOWN = Map.of(
      "dev.waymark.app: [RuleFiles, Settings]",
      "an \"always\" answer is written into the settings file that Settings reads and checks",
      "dev.waymark.app: [ModelOptions, Providers]",
      "the model flags' help names the providers' defaults, and choosing a provider reads the flags",
      "dev.waymark.app: [CheckpointsBisectCommand, CheckpointsCommand, CheckpointsExport]",
      "picocli's nested sub-commands read their parent's options (--dir, --session, --tab, --json); the parent lists "
          + "them");

  @Test
  void everyRingIsKnownWithWhy() {
    assertThat(SOURCES.rings()).allMatch(KNOWN::containsKey);
  }

  @Test
  void everyKnownRingIsStillThere() {
    assertThat(SOURCES.rings()).containsAll(KNOWN.keySet());
  }
}
