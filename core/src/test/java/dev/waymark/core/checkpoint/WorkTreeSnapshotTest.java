package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.TreeWatch;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.testing.JumpingTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stat cache behind shell commands: what a snapshot stores, and what it records. */
class WorkTreeSnapshotTest {
  @TempDir Path temp;
  StoreFixture f;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    f = new StoreFixture(temp);
    tab = f.store.openTab("t");
    f.writeExternally("a.txt", "a");
    f.writeExternally("src/b.txt", "b");
    f.writeExternally(".gitignore", "*.tmp\n");
    f.writeExternally("x.tmp", "ignored");
    f.writeExternally("node_modules/m.js", "excluded");
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void withoutFileNotificationsTheFirstSnapshotStoresEveryEligibleFileAndLaterOnesOnlyWhatChanged() throws Exception {
    System.setProperty(TreeWatch.ENABLED_PROPERTY, "false");
    try {
      racyFilesAreReadAgainAndOthersNot();
    } finally {
      System.clearProperty(TreeWatch.ENABLED_PROPERTY);
    }
  }

  private void racyFilesAreReadAgainAndOthersNot() throws Exception {
    JumpingTime time = new JumpingTime();
    f.store.changeTracker().wallClock(time::millis);
    Turn turn = tab.begin();
    WorkTreeSnapshot first = turn.snapshotWorkTree(1 << 20);
    assertThat(first.fileCount()).isEqualTo(3);
    assertThat(first.storedCount()).isEqualTo(3);
    assertThat(first.recordChanges().isEmpty()).isTrue();
    // Files written just before a scan are "racily clean" (as in git): the next scan reads them
    // again; once a scan happens well after their mtime, their stat is trusted. "Well after" is
    // FileStat.RACY_MILLIS on the tracker's clock, jumped here; the files' mtimes stay as the kernel set them.
    time.jump(Duration.ofMillis(FileStat.RACY_MILLIS + 100));
    assertThat(turn.snapshotWorkTree(1 << 20).storedCount()).isEqualTo(3);
    f.writeExternally("src/b.txt", "b2");
    WorkTreeSnapshot second = turn.snapshotWorkTree(1 << 20);
    assertThat(second.storedCount()).isEqualTo(1);
    assertThat(second.recordChanges().isEmpty()).isTrue();
  }

  @Test
  void recordsTheCachedBeforeAndTheDiskAfter() throws IOException {
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(1 << 20);
    f.writeExternally("a.txt", "changed");
    Files.delete(f.file("src/b.txt"));
    WorkTreeChanges changes = snapshot.recordChanges();
    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("a.txt", "src/b.txt");
    assertThat(changes.skipped()).isEmpty();
    turn.finish(CheckpointStatus.DONE);
    tab.undo();
    assertThat(f.read("a.txt")).isEqualTo("a");
    assertThat(f.read("src/b.txt")).isEqualTo("b");
  }

  @Test
  void recordWithAStoredBeforeFoldsLikeAnyRecord() throws IOException {
    Turn turn = tab.begin();
    FileVersion stored = f.store.repo().insert(List.of(FileState.regular("a"))).get(0);
    f.writeExternally("a.txt", "b");
    turn.record("a.txt", stored, FileState.regular("b"));
    turn.record("a.txt", FileState.regular("b"), FileState.regular("a"));
    assertThat(turn.changes()).isEmpty();
  }

  @Test
  void aBeforeThatIsNotStoredIsRefused() {
    Turn turn = tab.begin();
    FileVersion missing = new FileVersion(FileKind.REGULAR, ObjectId.fromString("0123456789012345678901234567890123456789"));
    assertThatThrownBy(() -> turn.record("a.txt", missing, FileState.regular("x")))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("not in the shadow repository");
  }

  @Test
  void garbageCollectionMakesTheNextSnapshotStoreEverythingAgain() {
    Turn turn = tab.begin();
    turn.snapshotWorkTree(1 << 20);
    assertThat(f.store.changeTracker().cachedCount()).isEqualTo(3);
    f.store.collectGarbage();
    assertThat(f.store.changeTracker().cachedCount()).isZero();
  }
}
