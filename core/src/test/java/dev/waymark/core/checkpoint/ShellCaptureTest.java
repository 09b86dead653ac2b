package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxMode;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.GitCli;
import dev.waymark.core.testing.JumpingTime;
import dev.waymark.core.testing.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a shell command's changes are captured: from the user's git index without copying the tree,
 * from a stat cache kept between processes, under the ignore rules of the command's start, without
 * taking another tab's writes, and without a window in which a kill loses them.
 */
@Tag("process")
class ShellCaptureTest {
  private static final long MAX = 1 << 20;
  @TempDir Path temp;
  StoreFixture f;

  @AfterEach
  void close() {
    if (f != null) {
      f.close();
    }
  }

  private Path project() throws IOException {
    return Files.createDirectories(temp.resolve("project"));
  }

  /** Writes a file with a modification time well in the past, so that no scan finds it racily clean. */
  private void writeOld(String path, String content) throws IOException {
    Path file = project().resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, UTF_8);
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
  }

  /** A git repository in the project with {@code files} committed and the index refreshed. */
  private void committedRepository(String... pathsAndContents) throws IOException {
    GitCli.requireGit();
    Path project = project();
    GitCli.ok(project, "init", "-q");
    for (int i = 0; i < pathsAndContents.length; i += 2) {
      writeOld(pathsAndContents[i], pathsAndContents[i + 1]);
    }
    GitCli.ok(project, "add", "-A");
    GitCli.ok(project, "commit", "-q", "-m", "start");
  }

  /** A Waymark process that opens the project, scans it before a command, and exits. */
  private void anEarlierProcessScans() throws IOException {
    f = new StoreFixture(temp);
    f.store.openTab("earlier").begin().snapshotWorkTree(MAX);
    f.close();
  }

  /** The scan before the first command of a new Waymark process. */
  private WorkTreeSnapshot aNewProcessScans() throws IOException {
    f = new StoreFixture(temp);
    return f.store.openTab("next").begin().snapshotWorkTree(MAX);
  }

  private void reopen() throws IOException {
    f.close();
    f = new StoreFixture(temp);
  }

  /**
   * Tab {@code tab1} of a project holding a.txt ("before"), whose turn #1 has taken its snapshot
   * before a command marked {@code mark}. Returns the session as saved when the turn started.
   */
  private TreeSnapshot aCommandStartsInTab1(CommandMark mark) throws IOException {
    writeOld("a.txt", "before\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab1");
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot();
    turn.snapshotWorkTree(MAX, mark);
    return saved;
  }

  @Test
  void aCleanGitRepositoryIsNotReadBeforeACommandAndIsNeverWritten() throws Exception {
    committedRepository("src/a.txt", "a\n", "src/b.txt", "b\n", "README", "r\n");
    String gitBefore = digestOf(project().resolve(".git"));
    f = new StoreFixture(temp);
    Turn turn = f.store.openTab("t").begin();

    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);

    assertThat(snapshot.fileCount()).isEqualTo(3);
    assertThat(snapshot.storedCount()).as("every file's content is known from the user's index").isZero();
    Files.writeString(f.file("src/a.txt"), "changed\n");
    WorkTreeChanges changes = snapshot.recordChanges();
    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("src/a.txt");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(new String(GitCli.show(f.store.shadowDirectory(), cp.tag().orElseThrow(), "pre/src/a.txt"), UTF_8))
        .as("the earlier content was copied into the shadow repository").isEqualTo("a\n");
    assertThat(digestOf(project().resolve(".git"))).as("the user's repository is untouched").isEqualTo(gitBefore);
  }

  @Test
  void theUsersGitGcCannotBreakAnUndo() throws Exception {
    committedRepository("keep.txt", "k\n");
    writeOld("staged.txt", "only in the index\n");
    GitCli.ok(project(), "add", "staged.txt");
    String stagedBlob = GitCli.ok(project(), "hash-object", "staged.txt").text().trim();
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("t");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    assertThat(snapshot.storedCount()).isZero();
    Files.writeString(f.file("staged.txt"), "rewritten by the command\n");
    snapshot.recordChanges();
    turn.finish(CheckpointStatus.DONE);
    // the staged blob becomes unreachable in the user's repository, and gc prunes it
    GitCli.ok(project(), "reset", "-q", "staged.txt");
    GitCli.ok(project(), "gc", "-q", "--prune=now");
    assertThat(GitCli.run(project(), "cat-file", "-e", stagedBlob).exit()).isNotZero();

    assertThat(tab.undo().applied()).isTrue();
    assertThat(f.read("staged.txt")).isEqualTo("only in the index\n");
  }

  @Test
  void aCommandThatDeletesTheUsersRepositoryCanStillBeUndone() throws Exception {
    committedRepository("packed.txt", "in a pack\n", "src/other.txt", "o\n");
    GitCli.ok(project(), "gc", "-q"); // its blob is packed now
    writeOld("loose.txt", "a loose object\n");
    GitCli.ok(project(), "add", "loose.txt");
    GitCli.ok(project(), "commit", "-q", "-m", "loose");
    writeOld("staged.txt", "only in the index\n");
    GitCli.ok(project(), "add", "staged.txt");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("t");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    assertThat(snapshot.storedCount()).as("all known from the user's index").isZero();

    // the command starts the repository over (rm -rf .git) and changes what the index vouched for
    deleteTree(project().resolve(".git"));
    Files.delete(f.file("packed.txt"));
    Files.writeString(f.file("loose.txt"), "rewritten\n");
    Files.writeString(f.file("staged.txt"), "rewritten too\n");
    WorkTreeChanges changes = snapshot.recordChanges();
    turn.finish(CheckpointStatus.DONE);

    assertThat(changes.skipped()).isEmpty();
    assertThat(changes.recorded()).extracting(FileChange::path)
        .containsExactlyInAnyOrder("packed.txt", "loose.txt", "staged.txt");
    assertThat(tab.undo().applied()).isTrue();
    assertThat(f.read("packed.txt")).isEqualTo("in a pack\n");
    assertThat(f.read("loose.txt")).isEqualTo("a loose object\n");
    assertThat(f.read("staged.txt")).isEqualTo("only in the index\n");
  }

  private static void deleteTree(Path root) throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        p.toFile().setWritable(true);
        Files.delete(p);
      }
    }
  }

  @Test
  void aFileGitConvertsOnCheckoutIsReadRatherThanTakenFromTheIndex() throws Exception {
    committedRepository(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n", "data.bin", "raw\n",
        "plain.txt", "p\n");
    f = new StoreFixture(temp);
    WorkTreeSnapshot snapshot = f.store.openTab("t").begin().snapshotWorkTree(MAX);
    assertThat(snapshot.storedCount()).as("only the LFS path is read").isEqualTo(1);
  }

  @Test
  void aFileWhoseLineEndingsGitNormalisesIsRecordedAndComesBackAsItWasOnDisk() throws Exception {
    // the index holds "mine\n" for a file that is "mine\r\n" on disk: its stat agrees, its blob does not
    committedRepository(".gitattributes", "* text=auto\n", "notes.txt", "mine\r\n", "other.txt", "keep\r\n");
    CheckpointTree tab = aCommandRuns(() -> {
      Files.writeString(f.file("notes.txt"), "overwritten\n");
      Files.delete(f.file("other.txt"));
    });

    assertThat(tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("notes.txt", "other.txt");
    assertThat(tab.undo().applied()).isTrue();
    assertThat(f.read("notes.txt")).isEqualTo("mine\r\n");
    assertThat(f.read("other.txt")).isEqualTo("keep\r\n");
  }

  @Test
  void aFileWithMixedLineEndingsThatGitNormalisedIsNeverGivenBytesItDidNotHold() throws Exception {
    committedRepository(".gitattributes", "* text=auto\n", "mixed.txt", "a\r\nb\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    Files.writeString(f.file("mixed.txt"), "changed\n");

    WorkTreeChanges changes = snapshot.recordChanges();

    // which LF was a CRLF cannot be known from the blob: said, rather than guessed
    assertThat(changes.recorded()).isEmpty();
    assertThat(changes.skipped()).singleElement().satisfies(s -> assertThat(s.reason()).contains("mixed endings").contains("cannot bring it back"));
  }

  @Test
  void filesOutsideTheIndexAreReadOnceAndNotAgainByTheNextProcess() throws Exception {
    writeOld("a.txt", "a\n");
    writeOld("src/b.txt", "b\n");
    f = new StoreFixture(temp);
    assertThat(f.store.openTab("t1").begin().snapshotWorkTree(MAX).storedCount()).isEqualTo(2);

    reopen(); // a new process: the stat cache comes from the store
    WorkTreeSnapshot next = f.store.openTab("t2").begin().snapshotWorkTree(MAX);

    assertThat(next.storedCount()).isZero();
    assertThat(next.fileCount()).isEqualTo(2);
    assertThat(next.readUsersIndex()).as("there is no git repository").isFalse();
  }

  @Test
  void aNewProcessDoesNotReadTheUsersIndexAgainWhenItHasNotChanged() throws Exception {
    committedRepository("src/a.txt", "a\n", "src/b.txt", "b\n");
    f = new StoreFixture(temp);
    assertThat(f.store.openTab("t1").begin().snapshotWorkTree(MAX).readUsersIndex()).isTrue();

    reopen(); // a new process: the stat cache says which index it was checked against
    Turn turn = f.store.openTab("t2").begin();
    WorkTreeSnapshot next = turn.snapshotWorkTree(MAX);

    assertThat(next.readUsersIndex()).as("the index file is as the cache saw it").isFalse();
    assertThat(next.storedCount()).isZero();
    Files.writeString(f.file("src/a.txt"), "changed\n");
    assertThat(next.recordChanges().recorded()).extracting(FileChange::path).containsExactly("src/a.txt");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(new String(GitCli.show(f.store.shadowDirectory(), cp.tag().orElseThrow(), "pre/src/a.txt"), UTF_8))
        .isEqualTo("a\n");
  }

  @Test
  void aNewProcessReadsTheUsersIndexAgainWhenTheUserChangedIt() throws Exception {
    committedRepository("a.txt", "a\n");
    anEarlierProcessScans();
    writeOld("staged.txt", "staged\n");
    GitCli.ok(project(), "add", "staged.txt");

    WorkTreeSnapshot next = aNewProcessScans();

    assertThat(next.readUsersIndex()).isTrue();
    assertThat(next.storedCount()).as("the staged file's content is known from the index").isZero();
  }

  @Test
  void aFileTheCacheDoesNotKnowIsLookedUpInTheIndexWhenReadingItWouldCostMore() throws Exception {
    String big = "x".repeat(20_000) + "\n";
    committedRepository("a.txt", "a\n", "big.txt", big);
    Files.move(project().resolve("big.txt"), temp.resolve("big.txt")); // away while the first process ran
    anEarlierProcessScans();
    Files.move(temp.resolve("big.txt"), project().resolve("big.txt")); // back, as the index still has it

    WorkTreeSnapshot next = aNewProcessScans();

    assertThat(next.readUsersIndex()).isTrue();
    assertThat(next.storedCount()).as("big.txt is known from the index, not read").isZero();
  }

  @Test
  void aSmallFileEditedSinceTheLastProcessIsReadRatherThanTheWholeIndex() throws Exception {
    committedRepository("a.txt", "a\n", "b.txt", "b\n");
    anEarlierProcessScans();
    writeOld("a.txt", "edited between the two processes\n");

    f = new StoreFixture(temp);
    Turn turn = f.store.openTab("t2").begin();
    WorkTreeSnapshot next = turn.snapshotWorkTree(MAX);

    assertThat(next.readUsersIndex()).isFalse();
    assertThat(next.storedCount()).isEqualTo(1);
    Files.writeString(f.file("a.txt"), "by the command\n");
    Checkpoint cp = finishWith(turn, next);
    assertThat(new String(GitCli.show(f.store.shadowDirectory(), cp.tag().orElseThrow(), "pre/a.txt"), UTF_8))
        .as("the user's edit is the command's earlier content").isEqualTo("edited between the two processes\n");
  }

  private static Checkpoint finishWith(Turn turn, WorkTreeSnapshot snapshot) {
    snapshot.recordChanges();
    return turn.finish(CheckpointStatus.DONE);
  }

  @Test
  void aDamagedStatCacheIsRebuiltNotBelieved() throws Exception {
    writeOld("a.txt", "a\n");
    anEarlierProcessScans();
    Path cache;
    try (Stream<Path> files = Files.walk(f.home)) {
      cache = files.filter(p -> p.getFileName().toString().equals("stat-cache.bin")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(cache);
    bytes[bytes.length / 2] ^= 0x55;
    Files.write(cache, bytes);
    f = new StoreFixture(temp);
    assertThat(f.store.openTab("t2").begin().snapshotWorkTree(MAX).storedCount()).isEqualTo(1);
  }

  @Test
  void aSameSizeRewriteThatPutsTheOldTimeBackIsStillAChange() throws Exception {
    writeOld("a.txt", "aaaa\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("t");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    FileTime old = Files.getLastModifiedTime(f.file("a.txt"));
    FileTime seen = (FileTime) Files.getAttribute(f.file("a.txt"), "unix:ctime");
    Eventually.until("a later change time than the scan saw", () -> { // the file system's clock is coarse
      Files.writeString(f.file("a.txt"), "bbbb\n");
      Files.setLastModifiedTime(f.file("a.txt"), old);
      return ((FileTime) Files.getAttribute(f.file("a.txt"), "unix:ctime")).compareTo(seen) > 0;
    });

    assertThat(snapshot.recordChanges().recorded()).extracting(FileChange::path).containsExactly("a.txt");
    turn.finish(CheckpointStatus.DONE);
    tab.undo();
    assertThat(f.read("a.txt")).isEqualTo("aaaa\n");
  }

  @Test
  void aCommandThatEditsGitignoreDoesNotMakeIgnoredFilesLookCreatedOrDeleted() throws Exception {
    writeOld(".gitignore", ".env\ndata/\n");
    writeOld(".env", "SECRET=1\n");
    writeOld("data/big.csv", "1,2\n");
    writeOld("src/a.txt", "a\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("t");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    Files.writeString(f.file(".gitignore"), "src/\n"); // un-ignores .env and data/, ignores src/

    WorkTreeChanges changes = snapshot.recordChanges();

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly(".gitignore");
    turn.finish(CheckpointStatus.DONE);
    tab.undo();
    assertThat(f.read(".gitignore")).isEqualTo(".env\ndata/\n");
    assertThat(f.read(".env")).isEqualTo("SECRET=1\n");
    assertThat(f.read("data/big.csv")).isEqualTo("1,2\n");
    assertThat(f.read("src/a.txt")).isEqualTo("a\n");
    tab.redo();
    assertThat(f.read(".env")).as("redo never deletes a file that was ignored").isEqualTo("SECRET=1\n");
    assertThat(f.read("src/a.txt")).isEqualTo("a\n");
  }

  @Test
  void theRepositorysExcludesFileIsHonoured() throws Exception {
    Path excludes = Files.writeString(temp.resolve("global-ignore"), "*.log\n");
    committedRepository("a.txt", "a\n");
    GitCli.ok(project(), "config", "core.excludesFile", excludes.toString());
    f = new StoreFixture(temp);
    Turn turn = f.store.openTab("t").begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    Files.writeString(f.file("build.log"), "noise\n");
    Files.writeString(f.file("b.txt"), "b\n");

    WorkTreeChanges changes = snapshot.recordChanges();

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("b.txt");
    assertThat(changes.skipped()).extracting(WorkTreeChanges.Skipped::path).containsExactly("build.log");
  }

  @Test
  void whatAnotherTabWritesWhileACommandRunsIsNotTheCommands() throws Exception {
    writeOld("a.txt", "a\n");
    f = new StoreFixture(temp);
    CheckpointTree shell = f.store.openTab("shell");
    CheckpointTree other = f.store.openTab("other");
    Turn command = shell.begin();
    WorkTreeSnapshot snapshot = command.snapshotWorkTree(MAX);
    Turn otherTurn = other.begin();
    f.writeAhead(otherTurn, "other.txt", "written by the other tab\n"); // as write_file does
    otherTurn.finish(CheckpointStatus.DONE);
    Files.writeString(f.file("mine.txt"), "written by the command\n");

    WorkTreeChanges changes = snapshot.recordChanges();

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("mine.txt");
    command.finish(CheckpointStatus.DONE);
    assertThat(shell.undo().applied()).isTrue();
    assertThat(f.exists("mine.txt")).isFalse();
    assertThat(f.read("other.txt")).as("undo never deletes another tab's file").isEqualTo("written by the other tab\n");
  }

  @Test
  void aCommandWritingWhatAnotherTabWroteEarlierStillRecordsTheEditItReplaced() throws Exception {
    // another tab's command wrote "agent" a moment ago; the user then edited the file; this tab's command
    // writes "agent" again: the user's edit is the pre-image, not something the other tab recorded
    aCommandRedoesAnotherTabsWriteOverTheUsersEdit("original\n", 0);
  }

  @Test
  void aCommandRepeatingAnotherTabsEarlierChangeOverTheSameEditStillRecordsIt() throws Exception {
    // the same pair of contents as the other tab's change, a second later: still not the other tab's write
    aCommandRedoesAnotherTabsWriteOverTheUsersEdit("my edit\n", 600); // a new Waymark takes longer than this to start
  }

  /**
   * Tab "earlier" takes keep.txt from {@code original} to "agent"; the user writes "my edit"; after
   * {@code pauseMillis} tab "next" writes "agent" again: that is recorded, and its undo gives the edit back.
   */
  private void aCommandRedoesAnotherTabsWriteOverTheUsersEdit(String original, long pauseMillis) throws Exception {
    writeOld("keep.txt", original);
    f = new StoreFixture(temp);
    JumpingTime time = new JumpingTime();
    f.store.changeTracker().wallClock(time::millis);
    CheckpointTree earlier = f.store.openTab("earlier");
    Turn first = earlier.begin();
    WorkTreeSnapshot before = first.snapshotWorkTree(MAX);
    Files.writeString(f.file("keep.txt"), "agent\n");
    assertThat(before.recordChanges().recorded()).extracting(FileChange::path).containsExactly("keep.txt");
    first.finish(CheckpointStatus.DONE);
    Files.writeString(f.file("keep.txt"), "my edit\n");
    // what is measured is the time between the two writes, on the tracker's clock
    time.jump(Duration.ofMillis(pauseMillis));

    CheckpointTree next = f.store.openTab("next");
    Turn command = next.begin();
    WorkTreeSnapshot snapshot = command.snapshotWorkTree(MAX);
    Files.writeString(f.file("keep.txt"), "agent\n");
    WorkTreeChanges changes = snapshot.recordChanges();
    command.finish(CheckpointStatus.DONE);

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("keep.txt");
    assertThat(next.undo().applied()).isTrue();
    assertThat(f.read("keep.txt")).as("the user's edit comes back").isEqualTo("my edit\n");
  }

  @Test
  void whatALongerCommandOfAnotherTabWritesDuringThisOneIsNotThisOnes() throws Exception {
    // the other tab's command started first and recorded last: its write is still its own
    writeOld("a.txt", "a\n");
    f = new StoreFixture(temp);
    JumpingTime time = new JumpingTime();
    f.store.changeTracker().wallClock(time::millis);
    CheckpointTree other = f.store.openTab("other");
    CheckpointTree shell = f.store.openTab("shell");
    Turn otherTurn = other.begin();
    WorkTreeSnapshot otherSnapshot = otherTurn.snapshotWorkTree(MAX);
    // longer than any slack for a write noted just before it is made, on the tracker's clock
    time.jump(Duration.ofMillis(2_300));
    Turn command = shell.begin();
    WorkTreeSnapshot snapshot = command.snapshotWorkTree(MAX);
    Files.writeString(f.file("theirs.txt"), "written by the other tab's command\n");
    assertThat(otherSnapshot.recordChanges().recorded()).extracting(FileChange::path).containsExactly("theirs.txt");
    otherTurn.finish(CheckpointStatus.DONE);
    Files.writeString(f.file("mine.txt"), "written by this command\n");

    WorkTreeChanges changes = snapshot.recordChanges();
    command.finish(CheckpointStatus.DONE);

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("mine.txt");
    assertThat(shell.undo().applied()).isTrue();
    assertThat(f.read("theirs.txt")).isEqualTo("written by the other tab's command\n");
  }

  /** One command of a new tab "tab": {@code command} runs between the scan before it and the record after it. */
  private CheckpointTree aCommandRuns(IoAction command) throws Exception {
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    command.run();
    snapshot.recordChanges();
    turn.finish(CheckpointStatus.DONE);
    return tab;
  }

  interface IoAction {
    void run() throws Exception;
  }

  @Test
  void undoingADirectoryRenamedAndLinkedBackUnderItsOldNameBringsItsFilesBack() throws Exception {
    writeOld("a/top.txt", "t\n");
    writeOld("a/b/c.txt", "c\n");
    CheckpointTree tab = aCommandRuns(() -> { // mv a a2 && ln -s a2 a
      Files.move(f.file("a"), f.file("a2"));
      Files.createSymbolicLink(f.file("a"), Path.of("a2"));
    });

    assertThat(tab.undo().applied()).isTrue();
    assertThat(f.file("a")).isDirectory();
    assertThat(Files.isSymbolicLink(f.file("a"))).isFalse();
    assertThat(f.read("a/top.txt")).isEqualTo("t\n");
    assertThat(f.read("a/b/c.txt")).isEqualTo("c\n");
    assertThat(f.file("a2")).doesNotExist();

    assertThat(tab.redo().applied()).isTrue();
    assertThat(Files.readSymbolicLink(f.file("a"))).isEqualTo(Path.of("a2"));
    assertThat(f.read("a2/top.txt")).isEqualTo("t\n");
    assertThat(f.read("a2/b/c.txt")).isEqualTo("c\n");
  }

  @Test
  void undoingADirectoryReplacedByALinkToOneWithTheSameNamesNeitherClashesNorReadsThroughTheLink() throws Exception {
    writeOld("d/f1.txt", "in1\n");
    writeOld("d/sub/f2.txt", "in2\n");
    Path outside = Files.createDirectories(temp.resolve("outside/sub"));
    Files.writeString(outside.resolve("../f1.txt"), "OUTSIDE\n");
    Files.writeString(outside.resolve("f2.txt"), "OUTSIDE\n");
    CheckpointTree tab = aCommandRuns(() -> { // rm -rf d && ln -s /elsewhere d
      Files.delete(f.file("d/sub/f2.txt"));
      Files.delete(f.file("d/sub"));
      Files.delete(f.file("d/f1.txt"));
      Files.delete(f.file("d"));
      Files.createSymbolicLink(f.file("d"), outside.getParent());
    });

    RestoreResult undo = tab.undo();

    assertThat(undo.applied()).as("%s", undo.conflicts()).isTrue();
    assertThat(Files.isSymbolicLink(f.file("d"))).isFalse();
    assertThat(f.read("d/f1.txt")).isEqualTo("in1\n");
    assertThat(f.read("d/sub/f2.txt")).isEqualTo("in2\n");
    assertThat(Files.readString(outside.resolve("f2.txt"))).isEqualTo("OUTSIDE\n");
    assertThat(GitCli.ok(f.store.repo().directory(), "cat-file", "--batch-all-objects", "--batch").text())
        .as("nothing outside the project is read into the store").doesNotContain("OUTSIDE");
    assertThat(tab.redo().applied()).isTrue();
    assertThat(Files.readSymbolicLink(f.file("d"))).isEqualTo(outside.getParent());
  }

  @Test
  void aLinkReplacedByADirectoryHoldingTheNamesItsTargetHoldsIsUndoneAndRedone() throws Exception {
    writeOld("real/r.txt", "real\n");
    Files.createSymbolicLink(project().resolve("lnk"), Path.of("real"));
    CheckpointTree tab = aCommandRuns(() -> { // rm lnk && mkdir lnk && echo x > lnk/r.txt
      Files.delete(f.file("lnk"));
      Files.createDirectory(f.file("lnk"));
      Files.writeString(f.file("lnk/r.txt"), "x\n");
    });

    assertThat(tab.undo().applied()).isTrue();
    assertThat(Files.readSymbolicLink(f.file("lnk"))).isEqualTo(Path.of("real"));
    RestoreResult redo = tab.redo();
    assertThat(redo.applied()).as("%s", redo.conflicts()).isTrue();
    assertThat(f.read("lnk/r.txt")).isEqualTo("x\n");
    assertThat(f.read("real/r.txt")).isEqualTo("real\n");
  }

  @Test
  void undoKeepsADirectoryItCouldNotMakeAgainAsItWasSoRedoNeverWidensItsPermissions() throws Exception {
    Path secret = Files.createDirectories(project().resolve("private"));
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rwx------"));
    CheckpointTree tab = aCommandRuns(() -> {
      Files.writeString(f.file("private/f.txt"), "x\n");
      Files.createDirectories(f.file("made/by/it"));
      Files.writeString(f.file("made/by/it/g.txt"), "g\n");
    });

    assertThat(tab.undo().applied()).isTrue();
    assertThat(f.file("private/f.txt")).doesNotExist();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("private"))))
        .as("the user's private directory is still there, as it was").isEqualTo("rwx------");
    assertThat(f.file("made")).as("what the command made, as a new directory gets it, goes with its files").doesNotExist();
    assertThat(tab.redo().applied()).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("private"))))
        .isEqualTo("rwx------");
    assertThat(f.read("private/f.txt")).isEqualTo("x\n");
  }

  @Test
  void aFileWithABackslashInItsNameIsRecordedAndUndone() throws Exception {
    writeOld("back\\slash.txt", "important\n");
    CheckpointTree tab = aCommandRuns(() -> Files.writeString(f.file("back\\slash.txt"), "gone\n"));

    assertThat(tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("back\\slash.txt");
    assertThat(tab.undo().applied()).isTrue();
    assertThat(f.read("back\\slash.txt")).isEqualTo("important\n");
  }

  @Test
  void aFileWhoseNameIsNotUtf8IsNamedAsNotRecordedRatherThanPassedOverInSilence() throws Exception {
    Path project = project();
    new ProcessBuilder("sh", "-c", "printf precious > \"$(printf 'bad\\377.txt')\"").directory(project.toFile()).start()
        .waitFor();
    f = new StoreFixture(temp);
    Turn turn = f.store.openTab("tab").begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    new ProcessBuilder("sh", "-c", "rm bad*.txt").directory(project.toFile()).start().waitFor();

    WorkTreeChanges changes = snapshot.recordChanges();

    assertThat(changes.skipped()).singleElement().satisfies(s -> {
      assertThat(s.path()).startsWith("bad");
      assertThat(s.reason()).contains("not UTF-8");
    });
  }

  @Test
  void aDiffAgainstTheDiskNeverShowsWhatLiesBehindALinkedDirectory() throws Exception {
    writeOld("a/b/c", "c\n");
    Path outside = Files.createDirectories(temp.resolve("outside2"));
    Files.writeString(outside.resolve("c"), "OUTSIDE\n");
    CheckpointTree tab = aCommandRuns(() -> { // mv a/b a/b_real && ln -s /outside a/b
      Files.move(f.file("a/b"), f.file("a/b_real"));
      Files.createSymbolicLink(f.file("a/b"), outside);
    });

    assertThat(tab.diff(1).files()).as("the disk is as #1 left it").isEmpty();
    assertThat(tab.diff(0).toString()).doesNotContain("OUTSIDE");
  }

  @Test
  void undoingTheRemovalOfAPrivateDirectoryMakesItPrivateAgainEvenInALaterProcess() throws Exception {
    Path secret = Files.createDirectories(project().resolve("priv/inner"));
    writeOld("priv/inner/s", "secret\n");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rwx--x--x"));
    Files.setPosixFilePermissions(secret.getParent(), PosixFilePermissions.fromString("rwx------"));
    TreeSnapshot saved = aCommandRuns(() -> { // rm -rf priv
      Files.delete(f.file("priv/inner/s"));
      Files.delete(f.file("priv/inner"));
      Files.delete(f.file("priv"));
    }).snapshot();
    reopen();

    assertThat(f.store.restoreTab(saved).tree().undo().applied()).isTrue();
    assertThat(f.read("priv/inner/s")).isEqualTo("secret\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("priv"))))
        .as("not made again wider than it was").isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("priv/inner"))))
        .isEqualTo("rwx--x--x");
  }

  @Test
  void aFileReplacedByAnEmptyDirectoryComesBackByUndo() throws Exception {
    writeOld("x", "f\n");
    CheckpointTree tab = aCommandRuns(() -> { // rm x; mkdir x
      Files.delete(f.file("x"));
      Files.createDirectory(f.file("x"));
    });

    RestoreResult undo = tab.undo();

    assertThat(undo.applied()).as("%s", undo.conflicts()).isTrue();
    assertThat(f.read("x")).isEqualTo("f\n");
  }

  @Test
  void aFileReplacedByADirectoryThatHoldsFilesIsNotUndoneOverThem() throws Exception {
    writeOld("x", "f\n");
    CheckpointTree tab = aCommandRuns(() -> {
      Files.delete(f.file("x"));
      Files.createDirectories(f.file("x/inner"));
    });
    Files.writeString(f.file("x/inner/user.txt"), "the user's\n");

    assertThat(tab.undo().applied()).isFalse();
    assertThat(f.read("x/inner/user.txt")).isEqualTo("the user's\n");
  }

  record Tabs(CheckpointTree shell, CheckpointTree other) {}

  interface BesideTab {
    void run(CheckpointTree other) throws Exception;
  }

  /** A command of tab "shell", during which {@code during} runs (with tab "other" at hand); then it is recorded. */
  private Tabs aCommandRunsBesideAnotherTab(BesideTab during) throws Exception {
    f = new StoreFixture(temp);
    CheckpointTree shell = f.store.openTab("shell");
    CheckpointTree other = f.store.openTab("other");
    Turn command = shell.begin();
    WorkTreeSnapshot snapshot = command.snapshotWorkTree(MAX);
    during.run(other);
    snapshot.recordChanges();
    command.finish(CheckpointStatus.DONE);
    return new Tabs(shell, other);
  }

  @Test
  void whenAnotherTabWroteAFileFirstTheCommandsChangeStartsFromWhatThatTabWrote() throws Exception {
    // another session's write_file lands while this command runs, and the command then appends to it:
    // undoing the command gives back the other session's version, not the one from before both
    writeOld("x.txt", "orig\n");
    Tabs tabs = aCommandRunsBesideAnotherTab(other -> {
      Turn otherTurn = other.begin();
      f.writeAhead(otherTurn, "x.txt", "B version\n");
      otherTurn.finish(CheckpointStatus.DONE);
      Files.writeString(f.file("x.txt"), "A-line\n", StandardOpenOption.APPEND);
    });
    CheckpointTree shell = tabs.shell();

    assertThat(shell.undo().applied()).isTrue();
    assertThat(f.read("x.txt")).as("the other session's write stays").isEqualTo("B version\n");
    assertThat(shell.redo().applied()).isTrue();
    assertThat(f.read("x.txt")).isEqualTo("B version\nA-line\n");
  }

  @Test
  void whenAnotherTabWroteOverTheCommandsFileAfterItAnUndoOfTheCommandDoesNotClobberThatWrite() throws Exception {
    writeOld("x.txt", "orig\n");
    Tabs tabs = aCommandRunsBesideAnotherTab(other -> {
      Files.writeString(f.file("x.txt"), "mine\n");
      Turn otherTurn = other.begin();
      f.writeAhead(otherTurn, "x.txt", "theirs\n");
      otherTurn.finish(CheckpointStatus.DONE);
    });
    CheckpointTree shell = tabs.shell();
    CheckpointTree other = tabs.other();

    RestoreResult undo = shell.undo();
    assertThat(undo.applied()).as("the other session's later write is not undone by this one's undo").isFalse();
    assertThat(undo.conflicts()).containsExactly("x.txt");
    assertThat(f.read("x.txt")).isEqualTo("theirs\n");
    assertThat(other.undo().applied()).isTrue();
    assertThat(f.read("x.txt")).as("undoing the other session gives back what this command wrote").isEqualTo("mine\n");
    assertThat(shell.undo().applied()).isTrue();
    assertThat(f.read("x.txt")).isEqualTo("orig\n");
  }

  @Test
  void whenAnotherTabWroteBetweenTwoOfTheCommandsWritesAnUndoOfTheCommandDoesNotClobberThatWrite() throws Exception {
    // echo A1 >> f; (another session writes f); echo A2 >> f: the command's change is cut where the other began
    writeOld("f", "base\n");
    Tabs tabs = aCommandRunsBesideAnotherTab(other -> {
      Files.writeString(f.file("f"), "A1\n", StandardOpenOption.APPEND);
      Turn otherTurn = other.begin();
      f.writeAhead(otherTurn, "f", "Bcontent\n");
      otherTurn.finish(CheckpointStatus.DONE);
      Files.writeString(f.file("f"), "A2\n", StandardOpenOption.APPEND);
    });

    RestoreResult undo = tabs.shell().undo();
    assertThat(undo.applied()).as("the other session's write is between: the undo stops there").isFalse();
    assertThat(undo.conflicts()).containsExactly("f");
    assertThat(f.read("f")).isEqualTo("Bcontent\nA2\n");
  }

  @Test
  void aCommandWhoseProcessWasKilledBeforeRecordingIsRecordedWhenTheTabIsOpenedAgain() throws Exception {
    TreeSnapshot saved = aCommandStartsInTab1(CommandMark.random());
    Files.writeString(f.file("a.txt"), "after the command\n");
    Files.writeString(f.file("new.txt"), "created by the command\n");
    // killed here: the command ended, its changes were never recorded
    f.store.close();
    orphanEveryJournal();

    try (ShadowStore reopened = f.openAgain()) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(restored.shellRecovered()).singleElement().asString().contains("checkpoint #1");
      CheckpointTree back = restored.tree();
      assertThat(back.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt", "new.txt");
      assertThat(back.undo().applied()).isTrue();
      assertThat(f.read("a.txt")).isEqualTo("before\n");
      assertThat(f.exists("new.txt")).isFalse();
    }
    f = new StoreFixture(temp);
    try (Stream<Path> journals = Files.walk(f.home)) {
      assertThat(journals.filter(p -> p.toString().contains("shell-journal") && p.toString().endsWith(".json")))
          .as("a recovered journal is removed").isEmpty();
    }
  }

  @Test
  void aJobThatClearedItsEnvironmentIsStoppedAfterItsWaymarkWasKilledMidCommandByTheSessionItsCommandLed()
      throws Exception {
    assumeTrue(CommandMark.findable(), "processes are found through /proc");
    CommandMark mark = CommandMark.random();
    writeOld("a.txt", "before\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab1");
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX, mark);
    // the command leads a session of its own; its job drops the mark (env -i) and would write late
    Process running = new ProcessBuilder("setsid", "env", "-i", "/bin/sh", "-c", "echo during > a.txt; sleep 3.01; echo late > late.txt")
        .directory(f.project.toFile()).start();
    snapshot.commandStarted(mark.leading(running.toHandle()));
    Eventually.until("the command wrote a.txt", () -> f.read("a.txt").equals("during\n"));
    // its Waymark is killed here, and the command goes on
    f.store.close();
    orphanEveryJournal();

    try (ShadowStore reopened = f.openAgain()) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(running.waitFor(5, TimeUnit.SECONDS)).as("found by its session, and stopped").isTrue();
      assertThat(restored.shellRecovered()).anySatisfy(note -> assertThat(note).contains("still running"));
      assertThat(restored.tree().checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt");
      Processes.awaitNone("sleep 3.01"); // stopped or ended: nothing of it writes after this
      assertThat(f.exists("late.txt")).as("nothing it would have done later happens unrecorded").isFalse();
    } finally {
      running.destroyForcibly();
    }
  }

  /** Another Waymark on the project, whose command writes enough files for its stat cache to be rewritten whole. */
  @Test
  void aCommandStillRunningAfterItsWaymarkWasKilledIsStoppedAndWhatItChangedIsRecovered() throws Exception {
    assumeTrue(CommandMark.findable(), "processes are found by their environment through /proc");
    CommandMark mark = CommandMark.random();
    TreeSnapshot saved = aCommandStartsInTab1(mark);
    // the command: edits a.txt at once, and would write late.txt later
    ProcessBuilder command = new ProcessBuilder("sh", "-c", "echo during > a.txt; sleep 3.02; echo late > late.txt")
        .directory(f.project.toFile());
    command.environment().put(CommandMark.VARIABLE, mark.value());
    Process running = command.start();
    Eventually.until("the command wrote a.txt", () -> f.read("a.txt").equals("during\n"));
    // its Waymark is killed here, and the command goes on
    f.store.close();
    orphanEveryJournal();

    try (ShadowStore reopened = f.openAgain()) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(running.waitFor(5, TimeUnit.SECONDS)).as("the command was stopped").isTrue();
      assertThat(restored.shellRecovered()).anySatisfy(note -> assertThat(note).contains("still running"));
      assertThat(restored.tree().checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt");
      Processes.awaitNone("sleep 3.02"); // stopped or ended: nothing of it writes after this
      assertThat(f.exists("late.txt")).as("nothing it would have done later happens unrecorded").isFalse();
      assertThat(restored.tree().undo().applied()).isTrue();
      assertThat(f.read("a.txt")).isEqualTo("before\n");
    } finally {
      running.destroyForcibly();
    }
  }

  /** The same in the sandbox: stopping it at the next start stops even a job that dropped the mark and left the session. */
  @Test
  void aSandboxedCommandStillRunningAfterItsWaymarkWasKilledIsStoppedWholeAtTheNextStart() throws Exception {
    CommandMark mark = CommandMark.random();
    TreeSnapshot saved = aCommandStartsInTab1(mark);
    var sandbox = Bwrap.required(new SandboxPolicy(
        SandboxMode.AUTO, List.of(), false, false, List.of(f.home), List.of()));
    ProcessBuilder command = new ProcessBuilder(sandbox.wrap(List.of("sh", "-c", "echo during > a.txt; "
        + "setsid env -i /bin/sh -c 'sleep 3.03; echo x > escaped.txt' > /dev/null 2>&1 & sleep 3.04; echo late > late.txt"),
        f.project.toRealPath(), false).argv()).directory(f.project.toFile());
    command.environment().put(CommandMark.VARIABLE, mark.value());
    Process running = command.start();
    Eventually.until("the command wrote a.txt", () -> f.read("a.txt").equals("during\n"));
    f.store.close(); // its Waymark is killed here, and the sandbox goes on
    orphanEveryJournal();

    try (ShadowStore reopened = f.openAgain()) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(running.waitFor(5, TimeUnit.SECONDS)).as("the sandbox was stopped").isTrue();
      assertThat(restored.tree().checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt");
      Processes.awaitNone("sleep 3.03"); // stopped or ended: nothing of them writes after this
      Processes.awaitNone("sleep 3.04");
      assertThat(f.exists("late.txt")).isFalse();
      assertThat(f.exists("escaped.txt")).as("a job without the mark went with its sandbox").isFalse();
    } finally {
      running.destroyForcibly();
    }
  }

  @Test
  void aJournalIsRecoveredByTheTabsNextHolderEvenWhileItsWritersPidStillShows() throws Exception {
    TreeSnapshot saved = aCommandStartsInTab1(CommandMark.random());
    Files.writeString(f.file("a.txt"), "after the command\n");
    f.store.close(); // killed: the lock on the tab is gone with it
    // ...while its process id still shows, as it does until a killed process is reaped (here: another live process)
    Process lingering = new ProcessBuilder("sleep", "30").start();
    try {
      ObjectMapper json = new ObjectMapper();
      try (Stream<Path> files = Files.walk(f.home)) {
        for (Path journal : files.filter(p -> p.toString().contains("shell-journal") && p.toString().endsWith(".json"))
            .toList()) {
          ObjectNode node = (ObjectNode) json.readTree(journal.toFile());
          node.put("pid", lingering.pid());
          node.put("pidStart", lingering.info().startInstant().orElseThrow().toEpochMilli());
          json.writeValue(journal.toFile(), node);
        }
      }

      try (ShadowStore reopened = f.openAgain()) {
        RestoredTab restored = reopened.restoreTab(saved);

        assertThat(restored.shellRecovered()).singleElement().asString().contains("checkpoint #1");
        assertThat(restored.tree().checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt");
      }
    } finally {
      lingering.destroyForcibly();
    }
  }

  private void anotherWaymarksCommandRewritesTheStatCache() throws IOException {
    try (ShadowStore other = f.openAgain()) {
      Turn otherTurn = other.openTab("tab2").begin();
      WorkTreeSnapshot otherSnapshot = otherTurn.snapshotWorkTree(MAX);
      Files.createDirectories(f.file("gen"));
      for (int i = 0; i < 1_000; i++) {
        Files.writeString(f.file("gen/f" + i + ".txt"), "g" + i + "\n");
      }
      otherSnapshot.recordChanges();
      otherTurn.finish(CheckpointStatus.DONE);
      other.openTab("tab3").begin().snapshotWorkTree(MAX).recordChanges(); // saves what the last one learnt
    }
  }

  /** Opens the tab saved as {@code saved} again: its killed command's edit of a.txt is recorded in #1, and undone. */
  private void assertTheKilledCommandsEditOfATxtIsRecoveredAndUndone(TreeSnapshot saved) throws IOException {
    try (ShadowStore reopened = f.openAgain()) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(restored.shellRecovered()).singleElement().asString().contains("checkpoint #1 now holds 1 file change");
      assertThat(restored.tree().checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt");
      assertThat(restored.tree().undo().applied()).isTrue();
      assertThat(f.read("a.txt")).isEqualTo("before\n");
    }
  }

  @Test
  void aKilledCommandIsRecoveredAfterAnotherProcessRewroteTheStatCacheMeanwhile() throws Exception {
    TreeSnapshot saved = aCommandStartsInTab1(CommandMark.random());
    Files.writeString(f.file("a.txt"), "after the command\n");
    // another Waymark on the project, whose command writes enough files for its cache to be rewritten whole
    anotherWaymarksCommandRewritesTheStatCache();
    // the first is killed: its command's changes were never recorded
    f.store.close();
    orphanEveryJournal();

    assertTheKilledCommandsEditOfATxtIsRecoveredAndUndone(saved);
  }

  @Test
  void anotherWaymarkCannotReplaceACommandsBaselineBetweenItsSaveAndItsJournal() throws Exception {
    writeOld("a.txt", "before\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab1");
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot();
    AtomicReference<Thread> other = new AtomicReference<>();
    f.store.changeTracker().beforeJournal(() -> {
      // right then, another Waymark's command writes enough files for its cache to be rewritten whole
      Thread thread = new Thread(() -> {
        try {
          anotherWaymarksCommandRewritesTheStatCache();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      thread.start();
      other.set(thread);
      try {
        thread.join(1_500); // it may finish here only if nothing holds it off
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    turn.snapshotWorkTree(MAX);
    f.store.changeTracker().beforeJournal(() -> {});
    other.get().join();
    Files.writeString(f.file("a.txt"), "after the command\n");
    f.store.close(); // killed: the command's changes were never recorded
    orphanEveryJournal();

    assertTheKilledCommandsEditOfATxtIsRecoveredAndUndone(saved);
  }

  @Test
  void aRecoveryNeverTakesAFileTheCacheDidNotKeepForOneTheCommandCreated() throws Exception {
    writeOld("a.txt", "before\n");
    writeOld("big.bin", "x".repeat(2_000)); // over the limit below: stat'ed, never stored
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab1");
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot();
    turn.snapshotWorkTree(1_000);
    Files.writeString(f.file("a.txt"), "after\n");
    f.store.close();
    orphanEveryJournal();

    try (ShadowStore reopened = f.openAgain()) {
      CheckpointTree back = reopened.restoreTab(saved).tree();
      assertThat(back.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt");
      back.undo();
      assertThat(f.file("big.bin")).exists();
    }
    f = new StoreFixture(temp);
  }

  @Test
  void aJournalOfALiveProcessIsLeftToIt() throws Exception {
    writeOld("a.txt", "before\n");
    f = new StoreFixture(temp);
    CheckpointTree tab = f.store.openTab("tab1");
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    Files.writeString(f.file("a.txt"), "the command is still running\n");
    try (ShadowStore other = f.openAgain()) {
      // the tab is held by the live process: nobody else records into it, its journal stays
      assertThatThrownBy(() -> other.restoreTab(saved)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("in use by process");
    }
    assertThat(snapshot.recordChanges().recorded()).extracting(FileChange::path).containsExactly("a.txt");
  }

  /** Makes every shell journal look as if its process had died. */
  private void orphanEveryJournal() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.walk(f.home)) {
      for (Path journal : files.filter(p -> p.toString().contains("shell-journal") && p.toString().endsWith(".json"))
          .toList()) {
        ObjectNode node = (ObjectNode) json.readTree(journal.toFile());
        node.put("pid", gone.pid());
        json.writeValue(journal.toFile(), node);
      }
    }
  }

  /** A digest of every file under {@code dir}: names, sizes, times and bytes. */
  private static String digestOf(Path dir) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    TreeMap<String, Path> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(p -> files.put(dir.relativize(p).toString(), p));
    }
    for (var e : files.entrySet()) {
      sha.update(e.getKey().getBytes(UTF_8));
      sha.update(Files.getLastModifiedTime(e.getValue()).toString().getBytes(UTF_8));
      sha.update(Files.readAllBytes(e.getValue()));
    }
    return HexFormat.of().formatHex(sha.digest()) + " " + List.copyOf(files.keySet()).size();
  }
}
