package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.shell.ProjectLocks;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.Running;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An isolated tab's land (#41) where the project or the view is not what it seems: a directory
 * that became a link to outside the project is never written through, and a land waits for
 * another Waymark's apply on the same project (the apply lock), then merges with what it wrote.
 */
class IsolatedLandSafetyTest {
  @TempDir Path temp;
  ToolSettings settings;
  ToolFixture f;
  Path outside;

  @BeforeEach
  void open() throws IOException {
    settings = ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\nfour\n");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/util.txt"), "util\n");
    outside = Files.createDirectories(temp.resolve("outside"));
    f = new ToolFixture(temp, settings, List.of(), true);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void aViewWhoseCommandMadeADirectoryALinkOutsideLandsTheLinkAndWritesNothingThroughIt() throws IOException {
    f.call("write_file", "path", "src/new.txt", "content", "the tab's\n");
    ToolResult made = f.shell("rm -rf src && ln -s " + outside + " src");
    assertThat(made.isError()).as(made.content()).isFalse();
    f.finish();

    f.tab.land();
    assertThat(Files.isSymbolicLink(f.project.resolve("src"))).isTrue();
    assertThat(Files.readSymbolicLink(f.project.resolve("src"))).isEqualTo(outside);
    assertThat(listed(outside)).as("nothing written or deleted through the link").isEmpty();
  }

  @Test
  void aLandWritesNothingThroughADirectoryTheProjectMadeALinkOutsideMeanwhile() throws IOException {
    f.call("write_file", "path", "src/new.txt", "content", "the tab's\n");
    f.call("edit_file", "path", "src/util.txt", "old_string", "util", "new_string", "UTIL");
    f.finish();
    Files.writeString(outside.resolve("util.txt"), "outside\n");
    // another program replaces the project's directory by a link to outside while the tab works
    Files.delete(f.project.resolve("src/util.txt"));
    Files.delete(f.project.resolve("src"));
    Files.createSymbolicLink(f.project.resolve("src"), outside);

    var landed = f.tab.land();
    assertThat(listed(outside)).as("nothing written through the link").containsExactly("util.txt");
    assertThat(outside.resolve("util.txt")).hasContent("outside");
    assertThat(Files.isSymbolicLink(f.project.resolve("src"))).isTrue();
    assertThat(landed.notLanded()).as("said, and kept under the rescued tag").isNotEmpty();
    assertThat(landed.rescueTag()).isPresent();
  }

  @Test
  void aLandWaitsForAnotherWaymarksApplyAndMergesWithWhatItWrote() throws Exception {
    f.call("edit_file", "path", "a.txt", "old_string", "four", "new_string", "FOUR");
    f.finish();
    Path lock = ProjectLocks.apply(f.project).orElseThrow(); // the project's apply lock, whatever the home
    try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock held = channel.lock(); // as another Waymark applying a layer to this project holds it
      Running<?> land = Running.start("land", () -> f.tab.land()).awaitIn("CommandSlot.take");
      assertThat(land.future()).as("waiting for the other apply").isNotDone();
      assertThat(f.read("a.txt")).as("nothing landed yet").isEqualTo("one\ntwo\nthree\nfour\n");
      f.write("a.txt", "ONE\ntwo\nthree\nfour\n"); // what the other apply wrote
      held.release();
      land.get(30);
    }
    assertThat(f.read("a.txt")).as("merged with the other apply's edit").isEqualTo("ONE\ntwo\nthree\nFOUR\n");
    CheckpointTree tab = f.tab;
    assertThat(tab.checkpoint(tab.live()).status()).isEqualTo(CheckpointStatus.DONE);
  }

  private static List<String> listed(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
