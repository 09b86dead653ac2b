package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.store.RestoreJournal;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.wording.Wording;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.util.FileUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
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
  void aPathRecordedAsALinkAndAsADirectoryAboveAnotherCommitsWithBothVersionsKept() throws Exception {
    // a layer that deleted conf/app/settings.ini through a link conf someone made: both are "pre" paths
    Turn turn = tab.begin();
    turn.record("conf", FileState.symlink("/elsewhere/conf"), FileState.absent());
    turn.record("conf/app/settings.ini", FileState.regular("x=1\n"), FileState.absent());
    turn.record("conf/app", FileState.regular("a file\n"), FileState.regular("a file, changed\n"));
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(cp.tag()).isPresent();
    Set<String> blobs = new TreeSet<>();
    try (var objects = new FileRepository(fx.store.shadowDirectory().toFile());
        var walk = new RevWalk(objects);
        var tree = new TreeWalk(objects)) {
      tree.addTree(walk.parseCommit(objects.resolve(cp.tag().get())).getTree());
      tree.setRecursive(true);
      while (tree.next()) {
        blobs.add(tree.getObjectId(0).name());
      }
    }
    // every version the checkpoint holds stays reachable from its commit (kept by gc)
    for (FileChange change : cp.changes()) {
      for (var version : List.of(change.before(), change.after())) {
        if (version.exists()) {
          assertThat(blobs).contains(version.blob().name());
        }
      }
    }
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
    String rescued;
    try (var repo = new FileRepository(fx.store.shadowDirectory().toFile());
         var walk = new RevWalk(repo);
         var tree = TreeWalk.forPath(repo, "disk/f.txt",
             walk.parseCommit(fx.store.repo().resolve(forced.rescueTag().get())).getTree())) {
      rescued = new String(fx.store.repo().read(tree.getObjectId(0)), StandardCharsets.UTF_8);
    }
    assertThat(rescued).isEqualTo("user\n");
  }


  @Test
  void aTurnWithoutFileChangesGetsNoTag() {
    Turn turn = tab.begin();
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);

    assertThat(cp.changedFiles()).isFalse();
    assertThat(cp.tag()).isEmpty();
    assertThat(cp.commit()).isEmpty();
    assertThat(fx.tags("tab1")).isEmpty();
  }

  @Test
  void recordsOfOnePathFoldIntoOneChangeAndAChangeUndoneWithinTheTurnIsDropped() throws IOException {
    fx.writeExternally("a.txt", "v0\n");
    Turn turn = tab.begin();
    fx.write(turn, "a.txt", "v1\n");
    fx.write(turn, "a.txt", "v2\n");
    fx.write(turn, "b.txt", "temp\n");
    fx.delete(turn, "b.txt");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);

    assertThat(cp.changes()).hasSize(1);
    FileChange change = cp.changes().get(0);
    assertThat(change.path()).isEqualTo("a.txt");
    assertThat(read(change.before())).isEqualTo("v0\n");
    assertThat(read(change.after())).isEqualTo("v2\n");
  }

  @Test
  void cancelledAndFailedTurnsKeepTheirChangesUndoable() throws IOException {
    Turn cancelled = tab.begin();
    fx.write(cancelled, "a.txt", "half done\n");
    assertThat(cancelled.finish(CheckpointStatus.CANCELLED).status()).isEqualTo(CheckpointStatus.CANCELLED);
    Turn failed = tab.begin();
    fx.write(failed, "b.txt", "oops\n");
    assertThat(failed.finish(CheckpointStatus.FAILED).tag()).contains("refs/tags/waymark/tab1/2");

    tab.undoTo(0);
    assertThat(fx.projectFiles()).isEmpty();
  }

  @Test
  void forwardLinksFollowTheWayLiveLastWentAndReadingThemMovesNothing() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    fx.turn(tab, "a.txt", "2\n");
    tab.goTo(1);
    fx.turn(tab, "a.txt", "3\n");
    assertThat(tab.forwardLinks()).isEqualTo(Map.of(0, 1, 1, 3));
    tab.goTo(2);
    tab.goTo(0);
    assertThat(tab.forwardLinks()).isEqualTo(Map.of(0, 1, 1, 2));
    assertThat(fx.exists("a.txt")).isFalse();
    assertThat(tab.live()).isZero();
  }

  @Test
  void branchingFromAnEarlierCheckpointKeepsTheAbandonedBranchReachable() throws IOException {
    fx.turn(tab, "a.txt", "a1\n");
    fx.turn(tab, "b.txt", "b2\n");
    fx.turn(tab, "a.txt", "a3\n");

    CheckpointTree.BranchResult branch = tab.branchFrom(1);
    assertThat(branch.restore().applied()).isTrue();
    Turn turn = branch.turn().orElseThrow();
    assertThat(turn.number()).isEqualTo(4);
    assertThat(fx.exists("b.txt")).isFalse();
    assertThat(fx.read("a.txt")).isEqualTo("a1\n");
    fx.write(turn, "c.txt", "c4\n");
    turn.finish(CheckpointStatus.DONE);
    assertThat(tab.checkpoint(4).parent()).isEqualTo(1);
    assertThat(tab.livePath()).containsExactly(0, 1, 4);
    assertThat(tab.redoable()).isEmpty();

    RestoreResult back = tab.goTo(3);
    assertThat(back.livePath()).containsExactly(0, 1, 2, 3);
    assertThat(fx.read("a.txt")).isEqualTo("a3\n");
    assertThat(fx.read("b.txt")).isEqualTo("b2\n");
    assertThat(fx.exists("c.txt")).isFalse();
  }

  @Test
  void aNewTurnAfterUndoClearsRedoButKeepsTheUndoneCheckpoints() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    fx.turn(tab, "a.txt", "2\n");
    tab.undo();
    assertThat(tab.redoable()).contains(2);

    fx.turn(tab, "b.txt", "new\n");
    assertThat(tab.redoable()).isEmpty();
    assertThatThrownBy(tab::redo).isInstanceOf(CheckpointException.class).hasMessage("Nothing to redo.");
    assertThat(tab.checkpoints()).hasSize(4);

    tab.goTo(2);
    assertThat(fx.read("a.txt")).isEqualTo("2\n");
    assertThat(fx.exists("b.txt")).isFalse();
  }

  @Test
  void undoToNThenRedoStepsForwardOneCheckpointAtATime() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    fx.turn(tab, "a.txt", "2\n");
    fx.turn(tab, "a.txt", "3\n");

    tab.undoTo(1);
    assertThat(fx.read("a.txt")).isEqualTo("1\n");
    assertThat(tab.redoable()).contains(2);
    tab.redo();
    assertThat(fx.read("a.txt")).isEqualTo("2\n");
    assertThat(tab.redo().target()).isEqualTo(3);
    assertThatThrownBy(() -> tab.undoTo(3)).hasMessageContaining("does not come before the live checkpoint #3");
  }

  @Test
  void aFilesOnlyRestoreIsACheckpointOfItsOwnThatUndoTakesBackAlone() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    fx.turn(tab, "a.txt", "2\n");

    RestoreResult files = tab.restore(1, RestoreMode.FILES, false);
    assertThat(files.written()).containsExactly("a.txt");
    assertThat(Wording.restored(files)).startsWith("Restored the files of #1 as #3: 1 file written");
    assertThat(fx.read("a.txt")).isEqualTo("1\n");
    assertThat(tab.live()).isEqualTo(3);
    assertThat(tab.filesAt()).isEqualTo(3);
    assertThat(tab.checkpoint(3).parent()).isEqualTo(2);
    assertThat(files.livePath()).containsExactly(0, 1, 2, 3);

    fx.turn(tab, "b.txt", "bee\n");
    assertThat(tab.checkpoint(4).changes()).extracting(FileChange::path).containsExactly("b.txt");

    tab.undo();
    tab.undo();
    assertThat(fx.read("a.txt")).isEqualTo("2\n");
    assertThat(tab.live()).isEqualTo(2);
  }

  @Test
  void aConversationOnlyRestoreIsACheckpointUnderLiveThatChangesNoFile() throws IOException {
    fx.turn(tab, "a.txt", "one\n");
    fx.turn(tab, "a.txt", "two\n");

    RestoreResult conversation = tab.restore(1, RestoreMode.CONVERSATION, false);
    assertThat(conversation.written()).isEmpty();
    assertThat(Wording.restored(conversation)).isEqualTo("Restored the conversation of #1 as #3; the files stay as they are.");
    assertThat(conversation.livePath()).containsExactly(0, 1, 2, 3);
    assertThat(tab.checkpoint(3).changes()).isEmpty();
    assertThat(fx.read("a.txt")).isEqualTo("two\n");
    assertThat(tab.live()).isEqualTo(3);
    assertThat(tab.filesAt()).isEqualTo(3);
    assertThat(tab.diff(3).isEmpty()).isTrue();

    fx.turn(tab, "b.txt", "bee\n");
    assertThat(tab.checkpoint(4).changes()).extracting(FileChange::path).containsExactly("b.txt");
    tab.undo();
    assertThat(fx.exists("b.txt")).isFalse();
    assertThat(fx.read("a.txt")).isEqualTo("two\n");
    tab.undo();
    assertThat(tab.live()).as("undo takes back the restore alone").isEqualTo(2);
    assertThat(fx.read("a.txt")).isEqualTo("two\n");
  }

  @Test
  void aOneSidedRestoreToWhereTheTabAlreadyIsIsRefused() throws IOException {
    fx.turn(tab, "a.txt", "one\n");
    assertThatThrownBy(() -> tab.restore(1, RestoreMode.FILES, false)).hasMessageContaining("already");
    assertThatThrownBy(() -> tab.restore(1, RestoreMode.CONVERSATION, false)).hasMessageContaining("already");
    assertThat(tab.checkpoints()).hasSize(2);
  }

  @Test
  void revertTakesBackOneCheckpointAndKeepsTheLaterOnes() throws IOException {
    fx.writeExternally("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
    fx.turn(tab, "f.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n");
    fx.turn(tab, "new.txt", "created\n");
    fx.turn(tab, "f.txt", "1\nTWO\n3\n4\n5\n6\nSEVEN\n8\n");

    RestoreResult reverted = tab.revert(1, 1, Set.of(), false);
    assertThat(reverted.applied()).isTrue();
    assertThat(reverted.merged()).containsExactly("f.txt");
    assertThat(Wording.restored(reverted)).startsWith("Reverted #1 as #4");
    assertThat(fx.read("f.txt")).isEqualTo("1\n2\n3\n4\n5\n6\nSEVEN\n8\n");
    assertThat(fx.read("new.txt")).isEqualTo("created\n");
    assertThat(tab.livePath()).containsExactly(0, 1, 2, 3, 4);

    tab.undo();
    assertThat(fx.read("f.txt")).isEqualTo("1\nTWO\n3\n4\n5\n6\nSEVEN\n8\n");
    tab.redo();
    assertThat(fx.read("f.txt")).isEqualTo("1\n2\n3\n4\n5\n6\nSEVEN\n8\n");

    tab.revert(2, 3, Set.of(), false);
    assertThat(fx.exists("new.txt")).isFalse();
    assertThat(fx.read("f.txt")).isEqualTo("1\n2\n3\n4\n5\n6\n7\n8\n");
  }

  @Test
  void aRevertThatClashesNamesTheFileWritesNothingAndByForceKeepsWhatItOverwrote() throws IOException {
    fx.turn(tab, "f.txt", "agent\n");
    fx.turn(tab, "g.txt", "g\n");
    fx.writeExternally("f.txt", "user\n");

    RestoreResult stopped = tab.revert(1, 1, Set.of(), false);
    assertThat(stopped.applied()).isFalse();
    assertThat(stopped.conflicts()).containsExactly("f.txt");
    assertThat(Wording.restored(stopped)).startsWith("Nothing reverted").contains("f.txt");
    assertThat(fx.read("f.txt")).isEqualTo("user\n");
    assertThat(tab.checkpoints()).hasSize(3);

    RestoreResult forced = tab.revert(1, 1, Set.of(), true);
    assertThat(fx.exists("f.txt")).isFalse();
    assertThat(fx.read("g.txt")).isEqualTo("g\n");
    assertThat(forced.rescueTag()).get().asString().matches("refs/tags/waymark/tab1/rescued/2-\\d{4}-\\d\\d-\\d\\dT\\d\\d\\.\\d\\d\\.\\d\\dZ");
  }

  @Test
  void revertOfOneFileLeavesTheCheckpointsOtherFiles() throws IOException {
    fx.writeExternally("a.txt", "a0\n");
    Turn turn = tab.begin();
    fx.write(turn, "a.txt", "a1\n");
    fx.write(turn, "b.txt", "b1\n");
    turn.finish(CheckpointStatus.DONE);

    tab.revert(1, 1, Set.of(fx.file("a.txt").toString()), false);
    assertThat(fx.read("a.txt")).isEqualTo("a0\n");
    assertThat(fx.read("b.txt")).isEqualTo("b1\n");
    assertThatThrownBy(() -> tab.revert(1, 1, Set.of("c.txt"), false)).hasMessageContaining("did not change c.txt");
    assertThatThrownBy(() -> tab.revert(0, 0, Set.of(), false)).hasMessageContaining("#0");
  }

  @Test
  void restoringSingleFilesPutsThemAsTheCheckpointHoldsThemAndNothingElse() throws IOException {
    fx.turn(tab, "a.txt", "a1\n");
    fx.turn(tab, "b.txt", "b1\n");
    fx.turn(tab, "a.txt", "a2\n");
    fx.turn(tab, "b.txt", "b2\n");

    RestoreResult restored = tab.restorePaths(1, Set.of("a.txt"), false);
    assertThat(Wording.restored(restored)).startsWith("Restored a.txt from #1 as #5");
    assertThat(fx.read("a.txt")).isEqualTo("a1\n");
    assertThat(fx.read("b.txt")).isEqualTo("b2\n");
    assertThat(tab.checkpoint(5).changes()).extracting(FileChange::path).containsExactly("a.txt");

    tab.restorePaths(0, Set.of("./b.txt"), false);
    assertThat(fx.exists("b.txt")).isFalse();
    assertThatThrownBy(() -> tab.restorePaths(1, Set.of("never.txt"), false)).hasMessageContaining("never.txt");
    assertThatThrownBy(() -> tab.restorePaths(1, Set.of("a.txt"), false)).hasMessageContaining("already");
  }

  @Test
  void diffListsFilesDeletedOrCreatedSinceAndFilesOnlyOtherBranchesTouched() throws IOException {
    fx.writeExternally("kept.txt", "kept\n");
    fx.turn(tab, "kept.txt", "changed\n");
    tab.undo();
    fx.turn(tab, "other.txt", "other\n");
    Files.delete(fx.file("other.txt"));
    Files.delete(fx.file("kept.txt"));

    assertThat(tab.diff(2).files()).extracting(CheckpointDiff.FileDiff::path).containsExactly("kept.txt", "other.txt");
    fx.writeExternally("kept.txt", "kept\n");
    fx.writeExternally("other.txt", "other\n");
    assertThat(tab.diff(2).isEmpty()).isTrue();
  }

  @Test
  void aRestoreNeverPutsAPrivateFilesContentInAWiderTemporaryFile() throws IOException {
    fx.writeExternally("secret.env", "one\n");
    Files.setPosixFilePermissions(fx.file("secret.env"), PosixFilePermissions.fromString("rw-------"));
    fx.turn(tab, "secret.env", "two\n");
    List<String> seen = new ArrayList<>();
    fx.store.workTree().onTempWritten(temp -> {
      try {
        seen.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(temp)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    tab.undo();
    assertThat(seen).containsExactly("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fx.file("secret.env"))))
        .isEqualTo("rw-------");
  }

  @Tag("process")
  @Test
  void aTabIsUsedByOneStoreAtATimeAndAKilledHolderLeavesItFree() throws Exception {
    try (ShadowStore second = fx.openAgain()) {
      assertThatThrownBy(() -> second.openTab("tab1")).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("Tab tab1 is in use by process " + ProcessHandle.current().pid());
      assertThat(second.openTab("tab2").tabId()).isEqualTo("tab2");
      assertThat(second.readTab(tab.snapshot()).tree().live()).as("reading needs no lock").isEqualTo(tab.live());
    }
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process holder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        TabHolder.class.getName(), fx.project.toString(), fx.home.toString(), "tab3").start();
    try {
      String line = new BufferedReader(new InputStreamReader(holder.getInputStream())).readLine();
      assertThat(line).isEqualTo("holding");
      assertThatThrownBy(() -> fx.store.openTab("tab3")).hasMessageContaining("Tab tab3 is in use by process " + holder.pid());
    } finally {
      holder.destroyForcibly().waitFor(); // SIGKILL: the system drops its lock
    }
    assertThat(fx.store.openTab("tab3").tabId()).isEqualTo("tab3");
  }

  @Test
  void undoRedoAndGotoCanBeForcedOverAClash() throws IOException {
    fx.turn(tab, "f.txt", "agent\n");
    fx.writeExternally("f.txt", "user\n");
    assertThat(tab.undo().applied()).isFalse();

    RestoreResult undo = tab.undo(true);
    assertThat(undo.applied()).isTrue();
    assertThat(undo.rescueTag()).isPresent();
    assertThat(fx.exists("f.txt")).isFalse();

    fx.writeExternally("f.txt", "again\n");
    assertThat(tab.redo().applied()).isFalse();
    assertThat(tab.redo(true).applied()).isTrue();
    assertThat(fx.read("f.txt")).isEqualTo("agent\n");

    fx.writeExternally("f.txt", "third\n");
    assertThat(tab.goTo(0).applied()).isFalse();
    assertThat(tab.goTo(0, true).applied()).isTrue();
    assertThat(tab.live()).isZero();
  }

  @Test
  void saveNamesFollowGitsRefRulesAndGotoReachesASaveByName() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    for (String bad : List.of("a..b", "x.lock", "x.", ".x", "a/b", "a b", "")) {
      assertThatThrownBy(() -> tab.save(bad)).as(bad).isInstanceOf(CheckpointException.class)
          .hasMessageStartingWith("Not a valid save name");
    }
    tab.save("v1.0_rc-1");
    fx.turn(tab, "a.txt", "2\n");

    assertThat(tab.saved("v1.0_rc-1")).isEqualTo(1);
    assertThatThrownBy(() -> tab.saved("nope")).hasMessageContaining("no save named \"nope\"").hasMessageContaining("v1.0_rc-1");
    tab.goTo(tab.saved("v1.0_rc-1"));
    assertThat(fx.read("a.txt")).isEqualTo("1\n");
  }

  @Test
  void aRestoreAcrossACheckpointWhoseCommitIsGoneRefusesAndNamesIt() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    TreeSnapshot snapshot = tab.snapshot();
    fx.close();
    FileUtils.delete(fx.store.shadowDirectory().toFile(), FileUtils.RECURSIVE);
    fx = new StoreFixture(temp);
    CheckpointTree back = fx.store.restoreTab(snapshot).tree();

    assertThatThrownBy(back::undo).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("#1").hasMessageContaining("nothing was restored");
    assertThat(fx.read("a.txt")).isEqualTo("1\n");
    assertThat(back.live()).isEqualTo(1);
    assertThat(back.snapshot().checkpoints().get(1).changes()).as("the session keeps naming what #1 changed").hasSize(1);
  }

  @Test
  void aSaveTagsEveryTrackedFileAsItIsAtLiveAndNamesMustBeUniqueAndValid() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    fx.turn(tab, "b.txt", "2\n");

    Checkpoint saved = tab.save("before-refactor");
    assertThat(saved.savedNames()).containsExactly("before-refactor");
    assertThat(fx.tags("tab1")).contains("refs/tags/waymark/tab1/saved/before-refactor");
    assertThatThrownBy(() -> tab.save("before-refactor")).hasMessageContaining("#2 is saved as before-refactor already");
    assertThatThrownBy(() -> tab.save("bad name")).hasMessageContaining("Not a valid save name");
    assertThatThrownBy(() -> tab.save("../x")).hasMessageContaining("Not a valid save name");
  }

  @Test
  void diffShowsHowTheDiskDiffersFromACheckpoint() throws IOException {
    fx.turn(tab, "a.txt", "one\ntwo\n");
    fx.turn(tab, "a.txt", "one\nTWO\n");

    assertThat(tab.diff(2).isEmpty()).isTrue();
    CheckpointDiff diff = tab.diff(1);
    assertThat(diff.files()).hasSize(1);
    assertThat(diff.unified()).contains("--- a/a.txt", "+++ b/a.txt", "-two", "+TWO");
    assertThat(diff.files().get(0).added()).isEqualTo(1);
    assertThat(diff.files().get(0).removed()).isEqualTo(1);

    CheckpointDiff fromStart = tab.diff(0);
    assertThat(fromStart.unified()).contains("--- /dev/null", "+++ b/a.txt");
    assertThat(fx.read("a.txt")).isEqualTo("one\nTWO\n");
  }

  @Test
  void changeDiffsCountTheLinesEachCheckpointAddedAndRemoved() throws IOException {
    fx.writeExternally("a.txt", "x\ny\n");
    Turn turn = tab.begin();
    fx.write(turn, "a.txt", "x\nY\nz\n");
    fx.write(turn, "bin.dat", "\0\1\2");
    turn.finish(CheckpointStatus.DONE);

    var diffs = tab.changeDiffs(1);
    assertThat(diffs).extracting(CheckpointDiff.FileDiff::path).containsExactly("a.txt", "bin.dat");
    assertThat(diffs.get(0).added()).isEqualTo(2);
    assertThat(diffs.get(0).removed()).isEqualTo(1);
    assertThat(diffs.get(1).binary()).isTrue();
  }

  @Test
  void whileATurnRunsTheTreeRefusesToMoveTheFiles() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    Turn turn = tab.begin();
    assertThatThrownBy(tab::undo).hasMessageContaining("#2 is still running");
    assertThatThrownBy(() -> tab.goTo(0)).hasMessageContaining("still running");
    assertThatThrownBy(tab::begin).hasMessageContaining("still running");
    assertThat(tab.forwardLinks()).containsEntry(1, 2);
    turn.finish(CheckpointStatus.DONE);
    assertThatThrownBy(() -> turn.finish(CheckpointStatus.DONE)).hasMessageContaining("finished already");
    assertThatThrownBy(() -> turn.record("x", FileState.absent(), FileState.regular("x"))).hasMessageContaining("is finished");
  }

  @Test
  void unknownCheckpointsAndBadPathsGetClearMessages() {
    assertThatThrownBy(() -> tab.goTo(7)).hasMessage("This tab has no checkpoint #7 (it has #0 to #0).")
        .extracting(e -> ((CheckpointException) e).kind()).isEqualTo(CheckpointException.Kind.NOT_FOUND);
    assertThatThrownBy(tab::undo).hasMessageContaining("Nothing to undo")
        .extracting(e -> ((CheckpointException) e).kind()).isEqualTo(CheckpointException.Kind.NOTHING_TO_DO);
    Turn turn = tab.begin();
    for (String bad : new String[] {"../x", "/etc/passwd", "a/../b", "a//b", ".git/config", "", "a/"}) {
      assertThatThrownBy(() -> turn.record(bad, FileState.absent(), FileState.regular("x")))
          .isInstanceOf(CheckpointException.class)
          .extracting(e -> ((CheckpointException) e).kind()).isEqualTo(CheckpointException.Kind.REFUSED);
    }
    assertThatThrownBy(() -> tab.begin()).as("one turn at a time")
        .extracting(e -> ((CheckpointException) e).kind()).isEqualTo(CheckpointException.Kind.BUSY);
  }

  @Test
  void retentionPrunesTheOldestAutomaticTagsButKeepsSavesAndLive() throws IOException {
    fx.close();
    fx = new StoreFixture(temp.resolve("r"), new RetentionPolicy(2, Duration.ofDays(30)), Clock.systemUTC());
    tab = fx.store.openTab("tab1");
    fx.turn(tab, "a.txt", "1\n");
    tab.save("keep");
    for (int i = 2; i <= 5; i++) {
      fx.turn(tab, "a.txt", i + "\n");
    }

    assertThat(fx.tags("tab1")).containsExactly(
        "refs/tags/waymark/tab1/1", "refs/tags/waymark/tab1/4", "refs/tags/waymark/tab1/5",
        "refs/tags/waymark/tab1/saved/keep");
    assertThat(tab.checkpoint(2).tag()).isEmpty();
    // A pruned checkpoint's objects stay reachable from later tags, so it can still be restored.
    tab.goTo(2);
    assertThat(fx.read("a.txt")).isEqualTo("2\n");
  }

  @Test
  void retentionPrunesByAge() throws IOException {
    fx.close();
    var clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    fx = new StoreFixture(temp.resolve("r"), new RetentionPolicy(100, Duration.ofDays(7)), clock);
    tab = fx.store.openTab("tab1");
    fx.turn(tab, "a.txt", "1\n");
    fx.turn(tab, "a.txt", "2\n");
    clock.now = clock.now.plus(Duration.ofDays(8));
    fx.turn(tab, "a.txt", "3\n");

    assertThat(fx.tags("tab1")).containsExactly("refs/tags/waymark/tab1/3");
  }

  @Test
  void deletingATabDeletesItsRefsOnly() throws IOException {
    CheckpointTree other = fx.store.openTab("tab2");
    fx.turn(tab, "a.txt", "1\n");
    tab.save("s");
    fx.turn(other, "b.txt", "2\n");

    assertThatThrownBy(() -> fx.store.deleteTab("tab1")).as("a tab held open is in use")
        .hasMessageContaining("Tab tab1 is in use");
    assertThat(fx.tags("tab1")).isNotEmpty();

    tab.release();
    fx.store.deleteTab("tab1");
    assertThat(fx.tags("tab1")).isEmpty();
    assertThat(fx.tags("tab2")).containsExactly("refs/tags/waymark/tab2/1");
    assertThat(fx.store.tabIds()).containsExactly("tab2");
    assertThat(fx.read("a.txt")).isEqualTo("1\n");
  }

  @Test
  void tabIdsAreCheckedAndATabWithTagsCannotBeOpenedEmpty() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    assertThatThrownBy(() -> fx.store.openTab("tab1")).hasMessageContaining("already has checkpoints");
    assertThatThrownBy(() -> fx.store.openTab("a/b")).hasMessageContaining("Not a valid tab id");
    assertThat(fx.store.newTab().tabId()).matches("t[0-9a-f]{12}");
  }

  @Test
  void twoTabsWorkOnOneProjectAtOnceWithoutTouchingEachOthersFiles() throws Exception {
    CheckpointTree other = fx.store.openTab("tab2");
    var pool = Executors.newFixedThreadPool(2);
    try {
      var first = pool.submit(() -> {
        for (int i = 0; i < 20; i++) {
          fx.turn(tab, "one/f" + i + ".txt", "tab1 " + i + "\n");
        }
        return null;
      });
      var second = pool.submit(() -> {
        for (int i = 0; i < 20; i++) {
          fx.turn(other, "two/f" + i + ".txt", "tab2 " + i + "\n");
        }
        return null;
      });
      first.get();
      second.get();
      var undoFirst = pool.submit(() -> tab.undoTo(0));
      var undoSecond = pool.submit(() -> other.undoTo(10));
      assertThat(undoFirst.get().applied()).isTrue();
      assertThat(undoSecond.get().applied()).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(fx.projectFiles()).hasSize(10).allMatch(p -> p.startsWith("two/"));
    assertThat(fx.tags("tab1")).hasSize(20);
    assertThat(fx.tags("tab2")).hasSize(20);
  }

  @Test
  void anotherTabsLaterEditIsMergedNotClobbered() throws IOException {
    CheckpointTree other = fx.store.openTab("tab2");
    fx.writeExternally("shared.txt", "a\nb\nc\nd\ne\n");
    fx.turn(tab, "shared.txt", "A\nb\nc\nd\ne\n");
    fx.turn(other, "shared.txt", "A\nb\nc\nd\nE\n");

    RestoreResult undo = tab.undo();
    assertThat(undo.merged()).containsExactly("shared.txt");
    assertThat(fx.read("shared.txt")).isEqualTo("a\nb\nc\nd\nE\n");
    other.undo();
    assertThat(fx.read("shared.txt")).isEqualTo("a\nb\nc\nd\ne\n");
  }

  @Test
  void anInterruptedRestoreIsRolledBackWhenTheStoreOpensAgain() throws IOException {
    fx.writeExternally("a.txt", "before\n");
    fx.turn(tab, "a.txt", "after\n");
    fx.turn(tab, "b.txt", "b\n");
    Checkpoint first = tab.checkpoint(1);
    FileChange a = first.changes().get(0);
    FileChange b = tab.checkpoint(2).changes().get(0);
    // As if the process died in an undo to #0 after writing a.txt but before deleting b.txt.
    RestoreJournal.write(fx.store.journalFile(), new RestoreJournal.Content(1, "tab1", 2, 0, List.of(
        RestoreJournal.Entry.of("b.txt", b.after(), b.before()),
        RestoreJournal.Entry.of("a.txt", a.after(), a.before()))));
    fx.writeExternally("a.txt", "before\n");
    Files.writeString(WorkTree.tempFor(fx.file("b.txt")), "half written");
    fx.close();

    try (ShadowStore reopened = fx.openAgain()) {
      assertThat(reopened.recovered()).singleElement().asString()
          .contains("interrupted restore of tab tab1 (#2 to #0) was rolled back", "put back a.txt");
      assertThat(Files.exists(reopened.journalFile())).isFalse();
    }
    assertThat(fx.read("a.txt")).isEqualTo("after\n");
    assertThat(fx.read("b.txt")).isEqualTo("b\n");
    assertThat(fx.projectFiles()).containsExactly("a.txt", "b.txt");
    fx = new StoreFixture(temp.resolve("again"));
  }

  private String read(FileVersion version) throws IOException {
    return new String(fx.store.repo().read(version.blob()), StandardCharsets.UTF_8);
  }

  /** A clock the test moves by hand. */
  static final class MutableClock extends Clock {
    Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @Test
  void twoStoresOfOneProjectInOneProcessShareItSafely() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    try (ShadowStore second = fx.openAgain()) {
      assertThat(second.shadowDirectory()).isEqualTo(fx.store.shadowDirectory());
      CheckpointTree other = second.openTab("tab2");
      Turn turn = other.begin();
      fx.write(turn, "b.txt", "2\n");
      turn.finish(CheckpointStatus.DONE);
      other.undo();
      tab.undo();
    }
    assertThat(fx.projectFiles()).isEmpty();
    assertThat(fx.store.tabIds()).containsExactly("tab1", "tab2");
  }

  @Test
  void aRecoveryThatCannotPutAFileBackStillOpensTheStoreAndKeepsTheJournal() throws IOException {
    fx.turn(tab, "d/f.txt", "agent\n");
    FileChange change = tab.checkpoint(1).changes().get(0);
    // As if an undo deleted d/f.txt and died; then the user put a file where the directory was.
    RestoreJournal.write(fx.store.journalFile(), new RestoreJournal.Content(1, "tab1", 1, 0,
        List.of(RestoreJournal.Entry.of("d/f.txt", change.after(), change.before()))));
    Files.delete(fx.file("d/f.txt"));
    Files.delete(fx.file("d"));
    fx.writeExternally("d", "the user's file\n");
    fx.close();

    try (ShadowStore reopened = fx.openAgain()) {
      assertThat(reopened.recovered()).singleElement().asString()
          .contains("could not put back d/f.txt", "blob " + change.after().blob().name(), "the journal is kept as");
      assertThat(Files.exists(reopened.journalFile())).isFalse();
      try (var kept = Files.list(reopened.journalFile().getParent())) {
        assertThat(kept.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("restore-journal.unrecovered-"));
      }
    }
    assertThat(fx.read("d")).isEqualTo("the user's file\n");
    fx = new StoreFixture(temp.resolve("again"));
  }

  @Test
  void pastTheLimitRetentionPrunesInBatchesOfATenth() throws IOException {
    fx.close();
    fx = new StoreFixture(temp.resolve("r"), new RetentionPolicy(10, Duration.ofDays(30)), Clock.systemUTC());
    tab = fx.store.openTab("tab1");
    for (int i = 1; i <= 11; i++) {
      fx.turn(tab, "a.txt", i + "\n");
    }
    assertThat(fx.tags("tab1")).hasSize(11);
    fx.turn(tab, "a.txt", "12\n");
    assertThat(fx.tags("tab1")).hasSize(10).doesNotContain("refs/tags/waymark/tab1/1", "refs/tags/waymark/tab1/2");
  }

  @Test
  void aTabIsRebuiltFromItsTagsWithItsBranchesAndCanUndoAndGoOn() throws IOException {
    fx.turn(tab, "a.txt", "1\n");
    tab.begin().finish(CheckpointStatus.DONE); // #2 changes nothing, so it has no tag
    fx.turn(tab, "b.txt", "3\n");
    tab.save("three");
    tab.undoTo(1);
    fx.turn(tab, "c.txt", "4\n");
    fx.store.releaseTab("tab1");

    try (ShadowStore again = fx.openAgain()) {
      CheckpointTree loaded = again.loadTab("tab1");
      assertThat(loaded.checkpoints()).extracting(Checkpoint::number).containsExactly(0, 1, 2, 3, 4);
      assertThat(loaded.checkpoint(3).parent()).isEqualTo(2);
      assertThat(loaded.checkpoint(3).savedNames()).containsExactly("three");
      assertThat(loaded.checkpoint(4).parent()).isEqualTo(1);
      assertThat(loaded.live()).isEqualTo(4);
      assertThat(loaded.checkpoint(4).changes()).isEqualTo(tab.checkpoint(4).changes());

      loaded.goTo(3);
      assertThat(fx.projectFiles()).containsExactly("a.txt", "b.txt");
      loaded.undoTo(0);
      assertThat(fx.projectFiles()).isEmpty();
      loaded.redo();
      assertThat(fx.read("a.txt")).isEqualTo("1\n");
      assertThat(loaded.begin().number()).isEqualTo(5);
      assertThatThrownBy(() -> again.loadTab("nobody")).hasMessageContaining("no checkpoints of tab nobody");
    }
  }

  @Test
  void afterManyCheckpointsRefsArePackedOnceTheStoreIsQuiet() throws Exception {
    fx.store.maintenanceQuietPeriod(Duration.ofMillis(300));
    for (int i = 1; i <= 64; i++) {
      fx.turn(tab, "a.txt", i + "\n");
    }
    Path packed = fx.store.shadowDirectory().resolve("packed-refs");
    Eventually.until("the refs were packed", () -> Files.exists(packed));
    assertThat(packed).exists();
    assertThat(Files.readString(packed)).contains("refs/tags/waymark/tab1/64");
    assertThat(fx.tags("tab1")).hasSize(64);
  }
}
