package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The restore path as a hurried user meets it: each case ends in one clear message and loses nothing. */
class RestoreEdgeTest {
  @TempDir Path temp;
  StoreFixture fx;
  AgentTool tool;
  CheckpointTree tab;
  Path locked;

  @BeforeEach
  void open() throws IOException {
    fx = new StoreFixture(temp);
    tool = new AgentTool(fx.project);
    tab = fx.store.openTab("edge");
  }

  @AfterEach
  void close() throws Exception {
    if (locked != null) {
      new ProcessBuilder("chattr", "-i", locked.toString()).start().waitFor();
      Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    fx.close();
  }

  @Test
  void aFileWhoseNameIsNearTheLimitComesBackByUndoAndRedo() throws IOException {
    String name = "dir/" + "n".repeat(250) + ".txt"; // 254 bytes: the longest names a file system takes
    fx.writeExternally(name, "kept\n");
    Turn turn = tab.begin();
    tool.write(turn, name, "changed\n");
    tool.delete(turn, "dir/" + "n".repeat(250) + ".txt");
    turn.finish(CheckpointStatus.DONE);

    assertThat(tab.undo().applied()).isTrue();
    assertThat(fx.read(name)).isEqualTo("kept\n");
    assertThat(tab.redo().applied()).isTrue();
    assertThat(fx.exists(name)).isFalse();
    tab.undo();
    assertThat(fx.projectFiles()).containsExactly(name);
  }

  @Test
  void aReadOnlyDirectoryStopsTheUndoWithAClearMessageAndNothingChanges() throws IOException {
    fx.writeExternally("a.txt", "a before\n");
    fx.writeExternally("ro/b.txt", "b before\n");
    fx.turn(tab, "a.txt", "a after\n", "ro/b.txt", "b after\n");
    locked = fx.file("ro");
    assumeTrue(makeUnwritable(locked), "the file system cannot make a directory unwritable here");

    assertThatThrownBy(() -> tab.undo()).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("failed at ro/b.txt: permission denied in ro/")
        .hasMessageContaining("every file was put back as it was");
    assertThat(fx.read("a.txt")).isEqualTo("a after\n");
    assertThat(fx.read("ro/b.txt")).isEqualTo("b after\n");
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void aFileReplacedByADirectoryWhileTheRestoreRunsIsNamedAndWhatItHoldsIsKept() throws IOException {
    fx.writeExternally("a.txt", "a before\n");
    fx.writeExternally("b.txt", "b before\n");
    fx.turn(tab, "a.txt", "a after\n", "b.txt", "b after\n");
    fx.store.onRestoreWrite(path -> {
      if (path.equals("b.txt")) {
        try {
          Files.delete(fx.file("b.txt"));
          fx.writeExternally("b.txt/inside.txt", "the user's\n");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });

    RestoreResult result = tab.undo();

    assertThat(result.applied()).isFalse();
    assertThat(result.conflicts()).containsExactly("b.txt");
    assertThat(fx.read("a.txt")).as("put back").isEqualTo("a after\n");
    assertThat(fx.read("b.txt/inside.txt")).isEqualTo("the user's\n");
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void aDamagedRestoreJournalIsKeptAndNamedAndTheStoreStillOpens() throws IOException {
    fx.turn(tab, "a.txt", "a\n");
    fx.close();
    Files.writeString(fx.store.journalFile(), "{\"format\":1,\"tab\":\"edge\",\"entr");

    try (ShadowStore reopened = fx.openAgain()) {
      assertThat(reopened.recovered()).singleElement().asString()
          .contains("restore journal", "damaged", "kept as");
      assertThat(reopened.journalFile()).doesNotExist();
      assertThat(reopened.loadTab("edge").live()).isEqualTo(1);
    }
    try (var kept = Files.list(fx.store.journalFile().getParent())) {
      assertThat(kept.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("restore-journal.damaged-"));
    }
    assertThat(fx.read("a.txt")).isEqualTo("a\n");
    fx = new StoreFixture(temp.resolve("again"));
  }

  @Test
  void aFileTheUndoWouldDeleteReplacedByADirectoryMeanwhileIsNamedAndKept() throws IOException {
    fx.writeExternally("a.txt", "a before\n");
    fx.turn(tab, "a.txt", "a after\n", "new.txt", "created\n");
    fx.store.onRestoreWrite(path -> {
      if (path.equals("new.txt")) {
        try {
          Files.delete(fx.file("new.txt"));
          fx.writeExternally("new.txt/mine.txt", "the user's\n");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });

    RestoreResult result = tab.undo();

    assertThat(result.applied()).isFalse();
    assertThat(result.conflicts()).containsExactly("new.txt");
    assertThat(fx.read("new.txt/mine.txt")).isEqualTo("the user's\n");
    assertThat(fx.read("a.txt")).isEqualTo("a after\n");
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void aStoreThatCannotBeWrittenStopsTheUndoBeforeAnyFileChangesAndSaysSo() throws IOException {
    fx.writeExternally("a.txt", "a before\n");
    fx.turn(tab, "a.txt", "a after\n");
    locked = fx.store.journalFile().getParent();
    assumeTrue(makeUnwritable(locked), "the file system cannot make a directory unwritable here");

    assertThatThrownBy(() -> tab.undo()).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("Cannot restore #0").hasMessageContaining("restore journal")
        .hasMessageContaining("no file was changed").hasMessageNotContaining("Could not lock");
    assertThat(fx.read("a.txt")).isEqualTo("a after\n");
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void aManifestWithADamagedModeStillLoadsAndItsFileComesBackAsBeforeModes() throws IOException {
    fx.writeExternally("a.txt", "a\n");
    Turn turn = tab.begin();
    tool.delete(turn, "a.txt");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    String tag = cp.tag().orElseThrow();
    String manifest = new String(fx.store.repo().readAt(cp.commit().orElseThrow(), "waymark.json"), StandardCharsets.UTF_8);
    assertThat(manifest).contains("\"mode\" : \"0644\"");
    FileVersion before = cp.changes().get(0).before();
    fx.store.repo().commitAndTag(List.of(new ShadowRepository.TreeEntry("pre/a.txt", before)),
        manifest.replace("\"mode\" : \"0644\"", "\"mode\" : \"0755\"").getBytes(StandardCharsets.UTF_8),
        List.of(), "damaged\n", Instant.now(), tag, cp.commit().orElseThrow());
    fx.store.releaseTab("edge");

    try (ShadowStore reopened = fx.openAgain()) {
      CheckpointTree loaded = reopened.loadTab("edge");
      assertThat(loaded.checkpoint(1).changes().get(0).before().hasMode()).isFalse();
      assertThat(loaded.undo().applied()).isTrue();
    }
    assertThat(fx.read("a.txt")).isEqualTo("a\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fx.file("a.txt")))).isEqualTo("rw-r--r--");
  }

  /** Read-only permissions stop a normal user; root needs the immutable attribute. */
  private static boolean makeUnwritable(Path dir) {
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("r-xr-xr-x"));
      if (!canCreateIn(dir)) {
        return true;
      }
      Process chattr = new ProcessBuilder("chattr", "+i", dir.toString()).redirectErrorStream(true).start();
      chattr.getInputStream().readAllBytes();
      return chattr.waitFor() == 0 && !canCreateIn(dir);
    } catch (Exception e) {
      return false;
    }
  }

  private static boolean canCreateIn(Path dir) {
    try {
      Files.delete(Files.createFile(dir.resolve(".probe")));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
