package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.wording.Wording;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.eclipse.jgit.lib.ObjectId;
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
  void aDirectoryMadeReadOnlyInTheMiddleOfARestoreRollsBackTheFilesAlreadyWritten() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a/first.txt", "first before\n");
    fx.writeExternally("z-locked/second.txt", "second before\n");
    fx.turn(tab, "a/first.txt", "first after\n", "z-locked/second.txt", "second after\n");

    locked = fx.file("z-locked");
    boolean[] unwritable = {false};
    String[] firstMeanwhile = {null};
    fx.store.onRestoreWrite(path -> {
      if (path.equals("z-locked/second.txt")) {
        firstMeanwhile[0] = readQuietly(fx.file("a/first.txt"));
        unwritable[0] = makeUnwritable(locked);
      }
    });

    CheckpointException failed = null;
    try {
      tab.undo();
    } catch (CheckpointException e) {
      failed = e;
    }
    assumeTrue(unwritable[0], "the file system cannot make a directory unwritable here");
    assertThat(firstMeanwhile[0]).as("a/first.txt was restored before the directory was locked").isEqualTo("first before\n");
    assertThat(failed).hasMessageContaining("failed at z-locked/second.txt").hasMessageContaining("every file was put back as it was");
    assertThat(fx.read("a/first.txt")).as("put back").isEqualTo("first after\n");
    assertThat(fx.read("z-locked/second.txt")).isEqualTo("second after\n");
    assertThat(fx.projectFiles()).containsExactly("a/first.txt", "z-locked/second.txt");
    assertThat(Files.exists(fx.store.journalFile())).isFalse();
    assertThat(tab.live()).isEqualTo(1);
    assertThat(tab.filesAt()).isEqualTo(1);
  }

  @Test
  void aFileDeletedInTheMiddleOfARestoreStaysDeletedAndTheRestoreIsUndone() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    for (String name : new String[] {"a.txt", "b.txt", "c.txt"}) {
      fx.writeExternally(name, name + " before\n");
    }
    Turn turn = tab.begin();
    for (String name : new String[] {"a.txt", "b.txt", "c.txt"}) {
      fx.write(turn, name, name + " after\n");
    }
    turn.finish(CheckpointStatus.DONE);
    fx.store.onRestoreWrite(path -> {
      if (path.equals("b.txt")) { // a.txt is restored by now; the user deletes c.txt
        deleteQuietly(fx.file("c.txt"));
      }
    });

    RestoreResult undo = tab.undo();

    assertThat(undo.applied()).isFalse();
    assertThat(undo.conflicts()).containsExactly("c.txt");
    assertThat(Wording.restored(undo)).contains("c.txt", "force");
    assertThat(fx.read("a.txt")).as("what the restore had written is put back").isEqualTo("a.txt after\n");
    assertThat(fx.read("b.txt")).isEqualTo("b.txt after\n");
    assertThat(fx.file("c.txt")).as("the user's deletion stands").doesNotExist();
    assertThat(Files.exists(fx.store.journalFile())).isFalse();
    assertThat(tab.live()).isEqualTo(1);

    fx.store.onRestoreWrite(path -> {});
    assertThat(tab.restore(0, RestoreMode.BOTH, true).applied()).isTrue();
    assertThat(fx.read("c.txt")).as("nothing was lost: force brings it back").isEqualTo("c.txt before\n");
    assertThat(fx.read("a.txt")).isEqualTo("a.txt before\n");
  }

  @Test
  void aFileSavedInTheMiddleOfARestoreIsNotOverwritten() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "a one\n");
    fx.writeExternally("b.txt", "b one\n");
    fx.turn(tab, "a.txt", "a two\n", "b.txt", "b two\n");
    fx.store.onRestoreWrite(path -> {
      if (path.equals("a.txt")) { // the user's editor saves b.txt, same size, an instant before it is overwritten
        writeQuietly(fx.file("b.txt"), "b TWO\n");
      }
    });

    RestoreResult undo = tab.undo();

    assertThat(undo.applied()).isFalse();
    assertThat(undo.conflicts()).containsExactly("b.txt");
    assertThat(fx.read("b.txt")).as("the user's save is kept").isEqualTo("b TWO\n");
    assertThat(fx.read("a.txt")).isEqualTo("a two\n");
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void aStoreCorruptedWhileWaymarkRunsStopsTheRestoreBeforeAnyFileChanges() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "a one\n");
    fx.writeExternally("b.txt", "b one\n");
    Checkpoint two = fx.turn(tab, "a.txt", "a two\n", "b.txt", "b two\n");

    // the object holding b.txt as it was before is damaged on disk
    ObjectId before = two.changes().get(1).before().blob();
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
    fx.turn(tab, "a.txt", "two\n");
    Files.delete(fx.file("a.txt"));

    RestoreResult undo = tab.undo();
    assertThat(undo.applied()).as("the user's deletion clashes with the undo").isFalse();
    assertThat(undo.conflicts()).containsExactly("a.txt");
    assertThat(Wording.restored(undo)).contains("a.txt", "force");
    assertThat(fx.file("a.txt")).doesNotExist();
    RestoreResult forced = tab.restore(0, RestoreMode.BOTH, true);
    assertThat(forced.applied()).isTrue();
    assertThat(fx.read("a.txt")).isEqualTo("one\n");
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.delete(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeQuietly(Path file, String content) {
    try {
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Read-only permissions stop a normal user; root needs the immutable attribute. */
  private static boolean makeUnwritable(Path dir) {
    try {
      return tryMakeUnwritable(dir);
    } catch (Exception e) {
      return false;
    }
  }

  private static boolean tryMakeUnwritable(Path dir) throws Exception {
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
