package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTreeTest {
  @TempDir Path temp;
  StoreFixture fx;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    fx = new StoreFixture(temp);
    tab = fx.store.openTab("tab1");
  }

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void aTurnThatChangesFilesGetsOneCommitAndItsTag() throws IOException {
    Turn turn = tab.begin();
    fx.write(turn, "a.txt", "one\n");
    fx.write(turn, "b.txt", "two\n");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);

    assertThat(cp.number()).isEqualTo(1);
    assertThat(cp.changes()).extracting(FileChange::path).containsExactly("a.txt", "b.txt");
    assertThat(cp.tag()).contains("refs/tags/waymark/tab1/1");
    assertThat(fx.tags("tab1")).containsExactly("refs/tags/waymark/tab1/1");
  }

  @Test
  void undoRedoMoveTheBytesOnDisk() throws IOException {
    fx.writeExternally("a.txt", "original\n");
    fx.turn(tab, "a.txt", "agent\n");
    fx.turn(tab, "new.txt", "created\n");

    RestoreResult undo = tab.undo();
    assertThat(undo.applied()).isTrue();
    assertThat(undo.written()).containsExactly("new.txt");
    assertThat(fx.exists("new.txt")).isFalse();
    assertThat(tab.live()).isEqualTo(1);

    tab.undo();
    assertThat(fx.read("a.txt")).isEqualTo("original\n");

    tab.redo();
    assertThat(fx.read("a.txt")).isEqualTo("agent\n");
    tab.redo();
    assertThat(fx.read("new.txt")).isEqualTo("created\n");
    assertThatThrownBy(tab::redo).hasMessageContaining("Nothing to redo");
  }

  @Test
  void someoneElsesEditSurvivesUndoAndRedoByMerge() throws IOException {
    fx.writeExternally("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
    fx.turn(tab, "f.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n");
    fx.writeExternally("f.txt", "1\nTWO\n3\n4\n5\n6\nSEVEN\n8\n");

    RestoreResult undo = tab.undo();
    assertThat(undo.merged()).containsExactly("f.txt");
    assertThat(fx.read("f.txt")).isEqualTo("1\n2\n3\n4\n5\n6\nSEVEN\n8\n");

    tab.redo();
    assertThat(fx.read("f.txt")).isEqualTo("1\nTWO\n3\n4\n5\n6\nSEVEN\n8\n");
  }

  @Test
  void aClashChangesNothingUntilForcedAndForceKeepsWhatItOverwrote() throws IOException {
    fx.writeExternally("f.txt", "a\n");
    fx.turn(tab, "f.txt", "b\n");
    fx.turn(tab, "g.txt", "g\n");
    fx.writeExternally("f.txt", "user\n");

    RestoreResult stopped = tab.undoTo(0);
    assertThat(stopped.applied()).isFalse();
    assertThat(stopped.conflicts()).containsExactly("f.txt");
    assertThat(fx.read("f.txt")).isEqualTo("user\n");
    assertThat(fx.read("g.txt")).isEqualTo("g\n");
    assertThat(tab.live()).isEqualTo(2);

    RestoreResult forced = tab.restore(0, RestoreMode.BOTH, true);
    assertThat(forced.applied()).isTrue();
    assertThat(fx.read("f.txt")).isEqualTo("a\n");
    assertThat(fx.exists("g.txt")).isFalse();
    assertThat(forced.rescueTag()).isPresent();
    String rescued = new String(fx.store.repo().read(
        org.eclipse.jgit.treewalk.TreeWalk.forPath(repoOf(fx), "disk/f.txt",
            new org.eclipse.jgit.revwalk.RevWalk(repoOf(fx)).parseCommit(fx.store.repo().resolve(forced.rescueTag().get())).getTree())
            .getObjectId(0)), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(rescued).isEqualTo("user\n");
  }

  private static org.eclipse.jgit.lib.Repository repoOf(StoreFixture fx) throws IOException {
    return new org.eclipse.jgit.internal.storage.file.FileRepository(fx.store.shadowDirectory().toFile());
  }
}
