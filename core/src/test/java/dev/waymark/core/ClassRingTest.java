package dev.waymark.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.ClassGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No ring of classes inside a package: a class that names another that names it back (through a
 * static, a nested record or a callback) makes neither readable alone, and the facade's ring of
 * eight was what made the checkpoint engine hard to read. Packages already use each other in no
 * ring ({@code CheckpointPackagesTest}); this is the same rule one floor down. The checkpoint
 * facade has none; the rings that stay elsewhere are listed with why.
 */
class ClassRingTest {
  private static final String ENGINE = "dev.waymark.core.checkpoint";
  private static final ClassGraph CORE = ClassGraph.ofSources(Path.of("src/main/java"));

  /** The rings that stay, as {@link ClassGraph#rings()} writes them, and why each is let be. */
  private static final Map<String, String> KNOWN = Map.of(
      ENGINE + ".shell: [TabHistory, TabRecords]",
      "the capture seam's two interfaces: a tab opens records, the records name their tab; no state",
      "dev.waymark.core.bisect: [Bisection, CandidateRun]",
      "a candidate runs with the Bisection.Setup and Blobs the bisection was opened with",
      "dev.waymark.core.layer: [ApplyPlan, LayerApply]",
      "the plan is the apply's journal: the apply writes it, and a recovery finishes it through the apply",
      "dev.waymark.core.mcp: [SdkConnection, SdkStart]",
      "the SDK adapter's two halves: the start makes the connection, a restart starts again");

  @Test
  void theCheckpointFacadeHasNoRing() {
    assertThat(CORE.rings(ENGINE)).isEmpty();
  }

  @Test
  void theEnginePackagesHaveNoRingButTheSeamsPair() {
    assertThat(CORE.rings().stream().filter(ring -> ring.startsWith(ENGINE)))
        .containsExactly(ENGINE + ".shell: [TabHistory, TabRecords]");
  }

  @Test
  void everyOtherRingIsKnownWithWhy() {
    assertThat(CORE.rings()).allMatch(KNOWN::containsKey);
  }

  /** A ring broken leaves the list, so that it cannot come back unnoticed. */
  @Test
  void everyKnownRingIsStillThere() {
    assertThat(CORE.rings()).containsAll(KNOWN.keySet());
  }

  @Test
  void aNestedTypeOrAStaticClosesARingButACommentDoesNot(@TempDir Path root) throws IOException {
    Path dir = Files.createDirectories(root.resolve("p"));
    Files.writeString(dir.resolve("Store.java"), "package p;\nclass Store {\n  record Restored(Tree tree) {}\n}\n");
    Files.writeString(dir.resolve("Tree.java"), "package p;\nclass Tree {\n  Store.Restored back;\n}\n");
    Files.writeString(dir.resolve("Loader.java"), "package p;\n/** Builds a {@link Writer}. */\nclass Loader {\n  String s = \"Writer\";\n}\n");
    Files.writeString(dir.resolve("Writer.java"), "package p;\nclass Writer {\n  Loader loader;\n  Other.Writer nested;\n}\n");

    ClassGraph graph = ClassGraph.ofSources(root);

    assertThat(graph.rings("p")).containsExactly(Set.of("Store", "Tree"));
    assertThat(graph.edges("p")).containsEntry("Loader", Set.of()).containsEntry("Writer", Set.of("Loader"));
    assertThat(List.copyOf(graph.rings())).containsExactly("p: [Store, Tree]");
  }
}
