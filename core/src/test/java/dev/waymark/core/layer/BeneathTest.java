package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A path below the project is reached from its root without a link, and stays in the directory reached. */
class BeneathTest {
  @TempDir Path temp;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aPathBelowALinkIsNotReachedAndTheLinkIsNamed(boolean holding) throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path outside = Files.createDirectories(temp.resolve("outside/sub"));
    Files.createDirectories(project.resolve("real"));
    Files.createSymbolicLink(project.resolve("real/linked"), outside);
    try (Beneath dirs = new Beneath(project, holding)) {
      assertThat(dirs.entry("real/file")).isPresent();
      assertThat(dirs.entry("real/linked/sub/file")).isEmpty();
      assertThat(dirs.linkAbove("real/linked/sub/file")).contains("real/linked");
      assertThat(dirs.entry("real/linked")).as("the link itself is named, not followed").isPresent();
      assertThat(dirs.entry("missing/file")).isEmpty();
      assertThat(dirs.linkAbove("missing/file")).isEmpty();
      Files.writeString(dirs.entry("real/file").orElseThrow(), "in the project");
    }
    assertThat(project.resolve("real/file")).hasContent("in the project");
  }

  @Test
  void directoriesAreHeldOpenWhereTheJdkLetsThemBe() throws Exception {
    // the tests run as the jar does, with sun.nio.fs opened: the race-free way is the one tested
    try (Beneath dirs = new Beneath(temp)) {
      assertThat(dirs.entry("x").orElseThrow().toString()).startsWith("/proc/self/fd/");
    }
  }

  @Test
  void aDirectoryReplacedByALinkAfterItWasReachedIsStillTheOneWrittenIn() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.createDirectories(project.resolve("d"));
    try (Beneath dirs = new Beneath(project)) {
      assertThat(dirs.entry("d/first")).isPresent(); // d reached, and held
      Files.move(project.resolve("d"), temp.resolve("moved-away"));
      Files.createSymbolicLink(project.resolve("d"), outside);
      Files.writeString(dirs.entry("d/x").orElseThrow(), "x");
    }
    assertThat(outside.resolve("x")).doesNotExist();
    assertThat(temp.resolve("moved-away/x")).hasContent("x");
  }
}
