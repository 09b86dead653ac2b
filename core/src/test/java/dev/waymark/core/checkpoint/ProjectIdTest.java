package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A project's store directory keeps its name across versions, or its checkpoints would be lost. */
class ProjectIdTest {
  @Test
  void theStoreDirectoryIsTheProjectsNameAndTheStartOfTheSha256OfItsPath() {
    // sha256("/home/u/my project") starts with 0f3adcbef64273fc (computed outside Java)
    assertThat(ShadowStore.projectId(Path.of("/home/u/my project"))).isEqualTo("my_project-0f3adcbef64273fc");
  }
}
