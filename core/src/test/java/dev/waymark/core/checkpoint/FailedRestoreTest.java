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
