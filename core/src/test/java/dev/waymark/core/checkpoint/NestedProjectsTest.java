package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Waymarks, one on a repository's root and one on its {@code pkg/}: their commands take turns,
 * and neither takes the other's writes for its own command's, so neither undo touches them.
 */
class NestedProjectsTest {
  private static final long MAX = 1 << 20;
  @TempDir Path temp;
  Path root;
  ShadowStore outer;
  ShadowStore inner;

  @BeforeEach
  void open() throws Exception {
    root = Files.createDirectories(temp.resolve("repo"));
    writeOld("README", "r\n");
    writeOld("pkg/lib.txt", "lib\n");
    WaymarkHome home = new WaymarkHome(temp.resolve("home"));
    outer = ShadowStore.open(root, home, RetentionPolicy.DEFAULT);
    inner = ShadowStore.open(root.resolve("pkg"), home, RetentionPolicy.DEFAULT);
  }

  @AfterEach
  void close() {
    if (inner != null) {
      inner.close();
    }
    if (outer != null) {
      outer.close();
    }
  }

  private void writeOld(String path, String content) throws Exception {
    Path file = root.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, UTF_8);
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
  }

  @Test
  void commandsOfNestedProjectsTakeTurns() throws Exception {
    Turn outerTurn = outer.openTab("o").begin();
    Turn innerTurn = inner.openTab("i").begin();
    try (var held = outerTurn.commandSlot().take(1_000).orElseThrow()) {
      assertThat(innerTurn.commandSlot().take(200)).as("the pkg/ Waymark waits for the root's command").isEmpty();
    }
    try (var held = innerTurn.commandSlot().take(1_000).orElseThrow()) {
      assertThat(outerTurn.commandSlot().take(200)).as("and the other way round").isEmpty();
    }
  }

  @Test
  void whatTheNestedWaymarkWritesDuringTheRootsCommandIsNotTheCommandsAndUndoLeavesIt() throws Exception {
    CheckpointTree outerTab = outer.openTab("o");
    CheckpointTree innerTab = inner.openTab("i");
    Turn command = outerTab.begin();
    WorkTreeSnapshot snapshot = command.snapshotWorkTree(MAX);
    Files.writeString(root.resolve("made.txt"), "by the command\n");
    Turn innerTurn = innerTab.begin();
    // as its tools write: noted ahead, then written
    innerTurn.recordAhead("lib.txt", innerTurn.read("lib.txt"), FileState.regular("lib, by pkg's Waymark\n"));
    Files.writeString(root.resolve("pkg/lib.txt"), "lib, by pkg's Waymark\n");
    innerTurn.recordAhead("gen.txt", innerTurn.read("gen.txt"), FileState.regular("generated\n"));
    Files.writeString(root.resolve("pkg/gen.txt"), "generated\n");
    innerTurn.finish(CheckpointStatus.DONE);

    WorkTreeChanges changes = snapshot.recordChanges();
    command.finish(CheckpointStatus.DONE);

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("made.txt");
    assertThat(outerTab.undo().applied()).isTrue();
    assertThat(root.resolve("made.txt")).doesNotExist();
    assertThat(Files.readString(root.resolve("pkg/gen.txt"))).isEqualTo("generated\n");
    assertThat(Files.readString(root.resolve("pkg/lib.txt"))).isEqualTo("lib, by pkg's Waymark\n");
  }
}
