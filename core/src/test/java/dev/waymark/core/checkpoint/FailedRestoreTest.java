package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A restore that fails half-way puts back every file it had already written. */
class FailedRestoreTest {
  @TempDir Path temp;
  StoreFixture fx;
  Path locked;

  @AfterEach
  void unlock() throws Exception {
    if (locked != null) {
      new ProcessBuilder("chattr", "-i", locked.toString()).start().waitFor();
      Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    if (fx != null) {
      fx.close();
    }
  }

  @Test
  void aWriteThatFailsMidRestoreRollsBackTheFilesAlreadyWritten() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a/first.txt", "first before\n");
    fx.writeExternally("z-locked/second.txt", "second before\n");
    Turn turn = tab.begin();
    fx.write(turn, "a/first.txt", "first after\n");
    fx.write(turn, "z-locked/second.txt", "second after\n");
    turn.finish(CheckpointStatus.DONE);

    locked = fx.file("z-locked");
    assumeTrue(makeUnwritable(locked), "the file system cannot make a directory unwritable here");

    assertThatThrownBy(tab::undo)
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("failed at z-locked/second.txt")
        .hasMessageContaining("every file was put back as it was");
    assertThat(fx.read("a/first.txt")).isEqualTo("first after\n");
    assertThat(fx.read("z-locked/second.txt")).isEqualTo("second after\n");
    assertThat(fx.projectFiles()).containsExactly("a/first.txt", "z-locked/second.txt");
    assertThat(Files.exists(fx.store.journalFile())).isFalse();
    assertThat(tab.live()).isEqualTo(1);
    assertThat(tab.filesAt()).isEqualTo(1);
  }

  @Test
  void aStoreCorruptedWhileWaymarkRunsStopsTheRestoreBeforeAnyFileChanges() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "a one\n");
    fx.writeExternally("b.txt", "b one\n");
    Turn turn = tab.begin();
    fx.write(turn, "a.txt", "a two\n");
    fx.write(turn, "b.txt", "b two\n");
    Checkpoint two = turn.finish(CheckpointStatus.DONE);

    // the object holding b.txt as it was before is damaged on disk
    org.eclipse.jgit.lib.ObjectId before = two.changes().get(1).before().blob();
    Path object = fx.store.shadowDirectory().resolve("objects").resolve(before.name().substring(0, 2)).resolve(before.name().substring(2));
    assertThat(object).exists();
    object.toFile().setWritable(true);
    Files.write(object, new byte[] {1, 2, 3, 4});

    assertThatThrownBy(tab::undo).isInstanceOf(CheckpointException.class).hasMessageContaining("b.txt");
    assertThat(fx.read("a.txt")).as("no file changed: the restore is all or nothing").isEqualTo("a two\n");
    assertThat(fx.read("b.txt")).isEqualTo("b two\n");
    assertThat(tab.live()).isEqualTo(1);
    assertThat(Files.exists(fx.store.journalFile())).isFalse();
  }

  @Test
  void aFileTheUserDeletedBeforeAnUndoIsAClashNamedNotSilentlyBroughtBack() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "one\n");
    Turn turn = tab.begin();
    fx.write(turn, "a.txt", "two\n");
    turn.finish(CheckpointStatus.DONE);
    Files.delete(fx.file("a.txt"));

    RestoreResult undo = tab.undo();
    assertThat(undo.applied()).as("the user's deletion clashes with the undo").isFalse();
    assertThat(undo.conflicts()).containsExactly("a.txt");
    assertThat(undo.summary()).contains("a.txt", "force");
    assertThat(fx.file("a.txt")).doesNotExist();
    RestoreResult forced = tab.restore(0, RestoreMode.BOTH, true);
    assertThat(forced.applied()).isTrue();
    assertThat(fx.read("a.txt")).isEqualTo("one\n");
  }

  /** Read-only permissions stop a normal user; root needs the immutable attribute. */
  private static boolean makeUnwritable(Path dir) throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("r-xr-xr-x"));
    if (!canCreateIn(dir)) {
      return true;
    }
    Process chattr = new ProcessBuilder("chattr", "+i", dir.toString()).redirectErrorStream(true).start();
    chattr.getInputStream().readAllBytes();
    return chattr.waitFor() == 0 && !canCreateIn(dir);
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
