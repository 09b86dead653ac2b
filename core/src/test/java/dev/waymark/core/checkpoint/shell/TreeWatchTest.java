package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watch keeps a bounded record of touched paths. Past the bound it forgets the oldest ones,
 * so only a scan older than what it forgot has to walk the whole tree: a recent scan stays
 * cheap however long the session has run.
 */
class TreeWatchTest {
  @TempDir Path temp;
  Path project;
  TreeWatch watch;

  @BeforeEach
  void start() throws IOException {
    assumeTrue(System.getProperty("os.name").startsWith("Linux"), "file notifications are used on Linux");
    project = Files.createDirectories(temp.resolve("project"));
    watch = TreeWatch.start(project, temp.resolve("cookies"), 10).orElseThrow();
    watch.register("");
  }

  @AfterEach
  void stop() {
    if (watch != null) {
      watch.close();
    }
  }

  private void create(String name) throws IOException {
    Files.writeString(project.resolve(name), name);
  }

  @Test
  void aScanFromJustBeforeTheBoundIsPassedStillLearnsWhatWasTouchedSince() throws IOException {
    for (int i = 0; i < 10; i++) {
      create("old" + i);
    }
    long mark = watch.sync().orElseThrow();
    create("new");
    watch.sync().orElseThrow();

    assertThat(watch.touchedSince(mark)).contains(Set.of("new"));
  }

  @Test
  void aScanOlderThanWhatTheWatchForgotMustWalkTheWholeTree() throws IOException {
    long mark = watch.sync().orElseThrow();
    for (int i = 0; i < 12; i++) {
      create("f" + i);
    }
    long later = watch.sync().orElseThrow();
    create("last");
    watch.sync().orElseThrow();

    assertThat(watch.touchedSince(mark)).isEmpty();
    assertThat(watch.touchedSince(later)).contains(Set.of("last"));
  }

  @Test
  void aPathTouchedAgainCountsOnceAndAsOfItsLatestTouch() throws IOException {
    create("a");
    create("b");
    long mark = watch.sync().orElseThrow();
    for (int i = 0; i < 20; i++) {
      Files.writeString(project.resolve("a"), "again " + i);
    }
    watch.sync().orElseThrow();

    assertThat(watch.touchedSince(mark)).contains(Set.of("a"));
    assertThat(watch.touchedSince(0)).contains(Set.of("a", "b"));
  }
}
