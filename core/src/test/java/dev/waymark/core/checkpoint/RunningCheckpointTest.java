package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.TempNames;
import dev.waymark.core.testing.GitCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn keeps what it records under its checkpoint's tag while it runs, before each file is
 * written, so that Waymark stopped at any moment (a crash, SIGKILL, a power cut) loses neither the
 * old content nor the new, and the next start finds the checkpoint even when the session file was
 * saved before it.
 */
class RunningCheckpointTest {
  @TempDir Path temp;
  StoreFixture fx;
  ShadowStore reopened;

  @AfterEach
  void close() {
    if (reopened != null) {
      reopened.close();
    }
    if (fx != null) {
      fx.close();
    }
  }

  /** The turn never finishes: the store is closed under it and opened again, as by the next process. */
  private void reopenAfterACrash() {
    fx.store.close();
    reopened = fx.openAgain();
  }

  @Test
  void aChangeRecordedAheadIsUnderTheTagBeforeTheFileIsTouched() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "mine\n");
    Turn turn = tab.begin();

    turn.recordAhead("a.txt", turn.read("a.txt"), FileState.regular("the agent's\n"));

    assertThat(fx.read("a.txt")).as("not written yet").isEqualTo("mine\n");
    Path shadow = fx.store.shadowDirectory();
    assertThat(new String(GitCli.show(shadow, "waymark/tab1/1", "pre/a.txt"), UTF_8)).isEqualTo("mine\n");
    assertThat(new String(GitCli.show(shadow, "waymark/tab1/1", "post/a.txt"), UTF_8)).isEqualTo("the agent's\n");
    assertThat(new String(GitCli.show(shadow, "waymark/tab1/1", "waymark.json"), UTF_8)).contains("\"status\" : \"running\"");
  }

  @Test
  void finishingMovesTheTagToTheFinalCommitAndATurnThatChangedNothingInTheEndHasNone() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "one\n");
    Turn turn = tab.begin();
    fx.writeAhead(turn, "a.txt", "two\n");
    Checkpoint done = turn.finish(CheckpointStatus.DONE);

    Path shadow = fx.store.shadowDirectory();
    assertThat(fx.store.repo().resolve("refs/tags/waymark/tab1/1")).isEqualTo(done.commit().orElseThrow());
    assertThat(new String(GitCli.show(shadow, "waymark/tab1/1", "waymark.json"), UTF_8)).contains("\"status\" : \"done\"");

    Turn back = tab.begin();
    Optional<FileChange> previous = back.recordAhead("a.txt", back.read("a.txt"), FileState.regular("three\n"));
    assertThat(fx.tags("tab1")).contains("refs/tags/waymark/tab1/2");
    back.withdraw("a.txt", previous); // the write failed
    assertThat(fx.tags("tab1")).as("nothing was changed, so #2 has no tag").doesNotContain("refs/tags/waymark/tab1/2");
    assertThat(back.finish(CheckpointStatus.DONE).tag()).isEmpty();
    GitCli.shadow(shadow, "fsck", "--strict");
  }

  @Test
  void aTurnCutShortAfterTheSessionWasSavedComesBackFromItsTagAndCanBeUndone() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("a.txt", "a original\n");
    fx.turn(tab, "b.txt", "b from #1\n");
    TreeSnapshot saved = tab.snapshot(); // the session file, saved after #1

    Turn turn = tab.begin();
    fx.writeAhead(turn, "a.txt", "a from #2\n");
    turn.recordAhead("c.txt", turn.read("c.txt"), FileState.regular("c from #2\n"));
    // killed here: c.txt was never written, and #2 never finished
    reopenAfterACrash();

    RestoredTab restored = reopened.restoreTab(saved);

    assertThat(restored.recovered()).containsExactly(2);
    CheckpointTree back = restored.tree();
    assertThat(back.live()).as("the files show #2").isEqualTo(2);
    assertThat(back.checkpoints().get(2).status()).isEqualTo(CheckpointStatus.CANCELLED);
    RestoreResult undo = back.undo();
    assertThat(undo.applied()).isTrue();
    assertThat(fx.read("a.txt")).as("the content before the cut-short turn is back").isEqualTo("a original\n");
    assertThat(fx.exists("c.txt")).isFalse();
    assertThat(fx.read("b.txt")).isEqualTo("b from #1\n");
    assertThat(back.begin().number()).as("numbers are never reused").isEqualTo(3);
  }

  @Test
  void aWriteCutShortLeavesNoTemporaryFileOnceTheTabIsBroughtBack() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.writeExternally("src/a.txt", "a original\n");
    TreeSnapshot saved = tab.snapshot();
    Turn turn = tab.begin();
    turn.recordAhead("src/a.txt", turn.read("src/a.txt"), FileState.regular("a new\n"));
    // killed while write_file had its temporary file beside a.txt, before the rename
    fx.writeExternally("src/.a.txt" + TempNames.WRITE_SUFFIX, "a ne");
    fx.writeExternally(".mine.waymark-write.tmp", "a file of the user's that no checkpoint names\n");
    reopenAfterACrash();

    reopened.restoreTab(saved);

    assertThat(fx.exists("src/.a.txt" + TempNames.WRITE_SUFFIX)).isFalse();
    assertThat(fx.read("src/a.txt")).isEqualTo("a original\n");
    assertThat(fx.exists(".mine.waymark-write.tmp")).as("only beside the files the tab recorded").isTrue();
  }

  @Test
  void aRestoreThatEndedAfterTheLastSessionSaveIsWhereTheTabComesBack() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.turn(tab, "a.txt", "one\n");
    fx.turn(tab, "a.txt", "two\n");
    TreeSnapshot saved = tab.snapshot(); // the session, saved at #2
    tab.undo();
    // killed here, before the session was saved again
    reopenAfterACrash();

    RestoredTab restored = reopened.restoreTab(saved);

    assertThat(restored.reconciled()).isTrue();
    CheckpointTree back = restored.tree();
    assertThat(back.live()).isEqualTo(1);
    assertThat(back.filesAt()).isEqualTo(1);
    assertThat(back.redoable()).contains(2);
    assertThat(back.diff(1).isEmpty()).isTrue();
    assertThat(back.redo().written()).containsExactly("a.txt");
    assertThat(fx.read("a.txt")).isEqualTo("two\n");
  }

  @Test
  void aSessionSavedAfterTheLastRestoreIsTakenAsItIs() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    fx.turn(tab, "a.txt", "one\n");
    tab.undo();
    TreeSnapshot saved = tab.snapshot();
    reopenAfterACrash();

    RestoredTab restored = reopened.restoreTab(saved);
    assertThat(restored.reconciled()).isFalse();
    assertThat(restored.tree().live()).isZero();
  }

  @Test
  void aSessionSavedWhileTheTurnRanTakesTheLaterStateOfItsTag() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    Turn turn = tab.begin();
    fx.writeAhead(turn, "a.txt", "a\n");
    TreeSnapshot saved = tab.snapshot(); // saved with #1 running, a.txt only
    fx.writeAhead(turn, "b.txt", "b\n");
    reopenAfterACrash();

    RestoredTab restored = reopened.restoreTab(saved);

    assertThat(restored.recovered()).containsExactly(1);
    assertThat(restored.recreatedTags()).as("the newer tag is not put back to the older commit").isEmpty();
    assertThat(restored.tree().checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt", "b.txt");
    assertThat(restored.tree().undo().applied()).isTrue();
    assertThat(fx.projectFiles()).isEmpty();
  }

  @Test
  void aTabLoadedFromItsTagsShowsARunningCheckpointAsCancelled() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    Turn turn = tab.begin();
    fx.writeAhead(turn, "a.txt", "a\n");
    reopenAfterACrash();

    CheckpointTree loaded = reopened.loadTab("tab1");

    assertThat(loaded.live()).isEqualTo(1);
    assertThat(loaded.checkpoints().get(1).status()).isEqualTo(CheckpointStatus.CANCELLED);
    assertThat(loaded.undo().applied()).isTrue();
    assertThat(Files.exists(fx.file("a.txt"))).isFalse();
  }
}
