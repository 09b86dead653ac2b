package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.RestoreJournal;
import dev.waymark.core.testing.FileTrees;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectInserter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files, names and paths at the edges of what the checkpoint engine must handle. */
class EdgeCaseTest {
  private static final String EMPTY_BLOB = new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB, new byte[0]).name();

  @TempDir Path temp;
  StoreFixture fx;
  AgentTool tool;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    fx = new StoreFixture(temp);
    tool = new AgentTool(fx.project);
    tab = fx.store.openTab("edge");
  }

  @AfterEach
  void close() {
    fx.close();
  }

  // ------------------------------------------------------------------------------- names

  @Test
  void namesWithSpacesAndNonAsciiCharactersSurviveUndoAndRedo() throws IOException {
    String encoding = System.getProperty("sun.jnu.encoding");
    assertThat(encoding).as("file names are encoded as %s: run the tests under a UTF-8 locale (LANG=C.UTF-8)", encoding)
        .isEqualToIgnoringCase("UTF-8");
    List<String> names = List.of("a file with spaces.txt", "ünïcödé dir/ß × 日本語.md", "emoji 🙂 dir/naïve file",
        " leading space", "trailing space ", "tab\there", "quote's \"double\" #1 %20 :colon;", "-starts-with-dash");
    fx.writeExternally("ünïcödé dir/existing café.txt", "before\n");
    List<String> start = FileTrees.listing(fx.project);

    Turn turn = tab.begin();
    for (String name : names) {
      tool.write(turn, name, "content of " + name + "\n");
    }
    tool.write(turn, "ünïcödé dir/existing café.txt", "after ☕\n");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(cp.changes()).extracting(FileChange::path).contains(names.toArray(String[]::new));
    List<String> full = FileTrees.listing(fx.project);

    tab.undo();
    assertThat(FileTrees.listing(fx.project)).isEqualTo(start);
    assertThat(tool.text("ünïcödé dir/existing café.txt")).isEqualTo("before\n");
    tab.redo();
    assertThat(FileTrees.listing(fx.project)).isEqualTo(full);
    for (String name : names) {
      assertThat(tool.text(name)).as(name).isEqualTo("content of " + name + "\n");
    }
    assertThat(tool.text("ünïcödé dir/existing café.txt")).isEqualTo("after ☕\n");
  }

  // ------------------------------------------------------------------------- directories

  @Test
  void nestedDirectoriesCreatedByATurnAreGoneAfterUndoAndBackAfterRedo() throws IOException {
    fx.writeExternally("a/keep.txt", "keep\n");
    Turn turn = tab.begin();
    tool.write(turn, "a/b/c/d.txt", "d\n");
    tool.write(turn, "a/b/e.txt", "e\n");
    tool.write(turn, "x/y/z/w.txt", "w\n");
    turn.finish(CheckpointStatus.DONE);
    List<String> full = FileTrees.listing(fx.project);
    assertThat(full).containsExactly("a", "a/b", "a/b/c", "a/b/c/d.txt", "a/b/e.txt", "a/keep.txt",
        "x", "x/y", "x/y/z", "x/y/z/w.txt");

    tab.undo();
    assertThat(FileTrees.listing(fx.project)).containsExactly("a", "a/keep.txt");
    tab.redo();
    assertThat(FileTrees.listing(fx.project)).isEqualTo(full);
    assertThat(tool.text("a/b/c/d.txt")).isEqualTo("d\n");

    // A turn that deletes them: undo brings the directories back, redo removes them again.
    Turn removal = tab.begin();
    tool.delete(removal, "a/b/c/d.txt");
    tool.delete(removal, "a/b/e.txt");
    tool.delete(removal, "x/y/z/w.txt");
    removal.finish(CheckpointStatus.DONE);
    assertThat(FileTrees.listing(fx.project)).containsExactly("a", "a/keep.txt");
    tab.undo();
    assertThat(FileTrees.listing(fx.project)).isEqualTo(full);
    tab.redo();
    assertThat(FileTrees.listing(fx.project)).containsExactly("a", "a/keep.txt");
  }

  @Test
  void aFileReplacedByADirectoryAndBackUndoesAndRedoesBothWays() throws IOException {
    fx.writeExternally("x", "i am a file\n");

    Turn toDirectory = tab.begin(); // #1: the file x becomes the directory x holding y
    tool.delete(toDirectory, "x");
    tool.write(toDirectory, "x/y", "inside\n");
    toDirectory.finish(CheckpointStatus.DONE);
    assertThat(Files.isDirectory(fx.file("x"))).isTrue();

    assertThat(tab.undo().applied()).isTrue();
    assertThat(Files.isRegularFile(fx.file("x"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(tool.text("x")).isEqualTo("i am a file\n");
    assertThat(tab.redo().applied()).isTrue();
    assertThat(FileTrees.listing(fx.project)).containsExactly("x", "x/y");
    assertThat(tool.text("x/y")).isEqualTo("inside\n");

    Turn toFile = tab.begin(); // #2: and back to a file
    tool.delete(toFile, "x/y");
    tool.write(toFile, "x", "a file again\n");
    toFile.finish(CheckpointStatus.DONE);

    assertThat(tab.undo().applied()).isTrue();
    assertThat(FileTrees.listing(fx.project)).containsExactly("x", "x/y");
    assertThat(tool.text("x/y")).isEqualTo("inside\n");
    assertThat(tab.redo().applied()).isTrue();
    assertThat(FileTrees.listing(fx.project)).containsExactly("x");
    assertThat(tool.text("x")).isEqualTo("a file again\n");

    assertThat(tab.undoTo(0).applied()).isTrue();
    assertThat(tool.text("x")).isEqualTo("i am a file\n");
    assertThat(tab.goTo(2).applied()).isTrue();
    assertThat(tool.text("x")).isEqualTo("a file again\n");
    assertThat(tab.goTo(1).applied()).isTrue();
    assertThat(tool.text("x/y")).isEqualTo("inside\n");
  }

  @Test
  void aDirectoryTheTabMadeButSomeoneElseAddedToDoesNotTurnBackIntoAFile() throws IOException {
    fx.writeExternally("x", "i am a file\n");
    Turn toDirectory = tab.begin();
    tool.delete(toDirectory, "x");
    tool.write(toDirectory, "x/y", "inside\n");
    toDirectory.finish(CheckpointStatus.DONE);
    fx.writeExternally("x/theirs.txt", "someone else's\n");
    SortedMap<String, String> before = FileTrees.snapshot(fx.project, true);

    RestoreResult undo = tab.undo();
    assertThat(undo.applied()).isFalse();
    assertThat(undo.conflicts()).containsExactly("x");
    assertThat(FileTrees.snapshot(fx.project, true)).isEqualTo(before);
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void anUndoInterruptedAfterSwappingFilesAndDirectoriesIsRolledBackWhenTheStoreOpens() throws IOException {
    fx.writeExternally("a", "file a\n");
    fx.writeExternally("b/in", "b's content\n");
    Turn turn = tab.begin(); // a: file to directory; b: directory to file
    tool.delete(turn, "a");
    tool.write(turn, "a/in", "a's content\n");
    tool.delete(turn, "b/in");
    tool.write(turn, "b", "file b\n");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    Map<String, FileChange> changes = new TreeMap<>();
    cp.changes().forEach(c -> changes.put(c.path(), c));
    SortedMap<String, String> atOne = FileTrees.snapshot(fx.project, false);

    // The undo wrote every file, in the order apply() uses, then the process died before it
    // deleted its journal.
    Files.delete(fx.file("a/in"));
    Files.delete(fx.file("a"));
    Files.delete(fx.file("b"));
    Files.writeString(fx.file("a"), "file a\n");
    Files.createDirectories(fx.file("b"));
    Files.writeString(fx.file("b/in"), "b's content\n");
    RestoreJournal.write(fx.store.journalFile(), new RestoreJournal.Content(1, "edge", 1, 0, List.of(
        RestoreJournal.Entry.of("a/in", changes.get("a/in").after(), FileVersion.ABSENT),
        RestoreJournal.Entry.of("b", changes.get("b").after(), FileVersion.ABSENT),
        RestoreJournal.Entry.of("a", FileVersion.ABSENT, changes.get("a").before()),
        RestoreJournal.Entry.of("b/in", FileVersion.ABSENT, changes.get("b/in").before()))));

    try (ShadowStore reopened = fx.openAgain()) {
      assertThat(reopened.recovered()).singleElement().asString().contains("rolled back");
    }
    assertThat(FileTrees.snapshot(fx.project, false)).isEqualTo(atOne);
    assertThat(fx.store.journalFile()).doesNotExist();
  }

  @Test
  void aRedoInterruptedAfterTurningAFileIntoADirectoryIsRolledBackWhenTheStoreOpens() throws IOException {
    fx.writeExternally("x", "file x\n");
    Turn turn = tab.begin();
    tool.delete(turn, "x");
    tool.write(turn, "x/y", "inside\n");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    tab.undo();
    SortedMap<String, String> atZero = FileTrees.snapshot(fx.project, false);
    Map<String, FileChange> changes = new TreeMap<>();
    cp.changes().forEach(c -> changes.put(c.path(), c));

    // The redo removed x and wrote x/y, then the process died before it deleted its journal.
    Files.delete(fx.file("x"));
    Files.createDirectories(fx.file("x"));
    Files.writeString(fx.file("x/y"), "inside\n");
    RestoreJournal.write(fx.store.journalFile(), new RestoreJournal.Content(1, "edge", 0, 1, List.of(
        RestoreJournal.Entry.of("x", changes.get("x").before(), FileVersion.ABSENT),
        RestoreJournal.Entry.of("x/y", FileVersion.ABSENT, changes.get("x/y").after()))));

    try (ShadowStore reopened = fx.openAgain()) {
      assertThat(reopened.recovered()).singleElement().asString().contains("rolled back");
    }
    assertThat(FileTrees.snapshot(fx.project, false)).isEqualTo(atZero);
    assertThat(tool.text("x")).isEqualTo("file x\n");
  }

  // ------------------------------------------------------------------------------ content

  @Test
  void zeroByteFilesAreCreatedEmptiedAndRestored() throws IOException {
    fx.writeExternally("full.txt", "content\n");
    fx.writeExternally("empty.txt", "");
    Turn turn = tab.begin();
    tool.write(turn, "new-empty", new byte[0]);
    tool.write(turn, "full.txt", new byte[0]);
    tool.write(turn, "empty.txt", "filled\n");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(cp.changes()).hasSize(3);
    FileChange created = cp.changes().stream().filter(c -> c.path().equals("new-empty")).findFirst().orElseThrow();
    assertThat(created.before().exists()).isFalse();
    assertThat(created.after().kind()).isEqualTo(FileKind.REGULAR);
    assertThat(created.after().blob().name()).isEqualTo(EMPTY_BLOB);

    tab.undo();
    assertThat(tool.exists("new-empty")).isFalse();
    assertThat(tool.text("full.txt")).isEqualTo("content\n");
    assertThat(tool.exists("empty.txt")).isTrue();
    assertThat(tool.bytes("empty.txt")).isEmpty();
    tab.redo();
    assertThat(tool.bytes("new-empty")).isEmpty();
    assertThat(tool.bytes("full.txt")).isEmpty();
    assertThat(tool.text("empty.txt")).isEqualTo("filled\n");

    Turn deletion = tab.begin();
    tool.delete(deletion, "new-empty");
    deletion.finish(CheckpointStatus.DONE);
    tab.undo();
    assertThat(tool.exists("new-empty")).isTrue();
    assertThat(tool.bytes("new-empty")).isEmpty();
  }

  @Tag("load")
  @Test
  void aFiftyMegabyteBinaryFileSurvivesUndoAndRedoByteForByte() throws IOException {
    long size = 50L * 1024 * 1024 + 3;
    Path big = fx.file("assets/big.bin");
    Turn create = tab.begin();
    FileState absent = create.read("assets/big.bin");
    Files.createDirectories(big.getParent());
    writeRandom(big, 42, size); // streamed: the test never holds the file in memory
    create.recordFromDisk("assets/big.bin", absent);
    create.finish(CheckpointStatus.DONE);
    String first = FileTrees.sha256(big);

    Turn modify = tab.begin();
    FileState before = modify.read("assets/big.bin");
    try (RandomAccessFile file = new RandomAccessFile(big.toFile(), "rw")) {
      file.seek(size / 2);
      file.write("patched in the middle".getBytes(UTF_8));
      file.seek(size);
      file.write(new byte[] {0, 13, 10, (byte) 0xff}); // and grown at the end
    }
    modify.recordFromDisk("assets/big.bin", before);
    modify.finish(CheckpointStatus.DONE);
    String second = FileTrees.sha256(big);
    assertThat(second).isNotEqualTo(first);

    tab.undo();
    assertThat(FileTrees.sha256(big)).isEqualTo(first);
    assertThat(Files.size(big)).isEqualTo(size);
    tab.undo();
    assertThat(tool.exists("assets/big.bin")).isFalse();
    tab.redo();
    assertThat(FileTrees.sha256(big)).isEqualTo(first);
    tab.redo();
    assertThat(FileTrees.sha256(big)).isEqualTo(second);
    assertThat(Files.size(big)).isEqualTo(size + 4);
    assertThat(FileTrees.listing(fx.project)).containsExactly("assets", "assets/big.bin");
  }

  // ------------------------------------------------------------------------------- links

  @Test
  void aSymlinkPointingOutsideTheProjectIsRecordedAsALinkAndNeverFollowed() throws IOException {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Path secret = outside.resolve("secret.txt");
    Files.writeString(secret, "outside the project\n");
    FileTime mtime = FileTime.from(Instant.parse("2001-02-03T04:05:06Z"));
    Files.setLastModifiedTime(secret, mtime);
    SortedMap<String, String> outsideBefore = FileTrees.snapshot(outside, true);
    fx.writeExternally("local.txt", "local\n");

    Turn links = tab.begin();
    tool.symlink(links, "abs-link", secret.toString());
    tool.symlink(links, "links/rel-link", "../../outside/secret.txt");
    tool.symlink(links, "dir-link", outside.toString());
    tool.symlink(links, "dangling", "../outside/not-there");
    Checkpoint cp = links.finish(CheckpointStatus.DONE);
    for (FileChange change : cp.changes()) {
      assertThat(change.after().kind()).as(change.path()).isEqualTo(FileKind.SYMLINK);
    }
    FileChange abs = cp.changes().stream().filter(c -> c.path().equals("abs-link")).findFirst().orElseThrow();
    assertThat(new String(fx.store.repo().read(abs.after().blob()), UTF_8)).isEqualTo(secret.toString());

    Turn replace = tab.begin(); // the agent replaces one link by a regular file of its own
    FileState link = replace.read("abs-link");
    assertThat(link.kind()).isEqualTo(FileKind.SYMLINK);
    Files.delete(fx.file("abs-link"));
    Files.writeString(fx.file("abs-link"), "a local copy\n");
    replace.recordFromDisk("abs-link", link);
    replace.finish(CheckpointStatus.DONE);

    tab.undo(); // the regular file becomes the link again
    assertLink("abs-link", secret.toString());
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
    tab.undo(); // the links are removed, not what they point to
    assertThat(FileTrees.listing(fx.project)).containsExactly("local.txt");
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
    tab.redo();
    assertLink("abs-link", secret.toString());
    assertLink("links/rel-link", "../../outside/secret.txt");
    assertLink("dir-link", outside.toString());
    assertLink("dangling", "../outside/not-there");
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
    tab.redo();
    assertThat(Files.isSymbolicLink(fx.file("abs-link"))).isFalse();
    assertThat(tool.text("abs-link")).isEqualTo("a local copy\n");
    assertThat(Files.readString(secret)).isEqualTo("outside the project\n");
    assertThat(Files.getLastModifiedTime(secret)).isEqualTo(mtime);
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
    assertThat(tab.diff(0).files()).extracting(CheckpointDiff.FileDiff::path)
        .containsExactlyInAnyOrder("abs-link", "links/rel-link", "dir-link", "dangling");
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
  }

  @Test
  void aToolWritingThroughASymlinkedDirectoryIsRefused() throws IOException {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("existing.txt"), "outside\n");
    Files.createSymbolicLink(fx.file("linked"), outside);
    Files.createDirectories(fx.file("real"));
    Files.createSymbolicLink(fx.file("real/sub"), outside);
    SortedMap<String, String> outsideBefore = FileTrees.snapshot(outside, true);

    Turn turn = tab.begin();
    for (String path : List.of("linked/existing.txt", "linked/new.txt", "real/sub/existing.txt", "real/sub/deeper/new.txt")) {
      assertThatThrownBy(() -> turn.read(path)).as(path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("symbolic link");
      assertThatThrownBy(() -> turn.record(path, FileState.absent(), FileState.regular("x\n"))).as(path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("symbolic link");
    }
    // The links themselves are paths of the project like any other.
    assertThat(turn.read("linked").kind()).isEqualTo(FileKind.SYMLINK);
    assertThat(turn.changes()).isEmpty();
    assertThat(turn.finish(CheckpointStatus.DONE).tag()).isEmpty();
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
  }

  @Test
  void anUndoNeverWritesOrDeletesThroughADirectoryTheUserReplacedWithALink() throws IOException {
    fx.writeExternally("lib/a.txt", "a0\n");
    Turn turn = tab.begin();
    tool.write(turn, "gen/out.txt", "generated\n");
    tool.write(turn, "lib/a.txt", "a1\n");
    turn.finish(CheckpointStatus.DONE);
    // The user moves both directories out of the project and links them back in.
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.move(fx.file("gen"), outside.resolve("gen"));
    Files.move(fx.file("lib"), outside.resolve("lib"));
    Files.createSymbolicLink(fx.file("gen"), outside.resolve("gen"));
    Files.createSymbolicLink(fx.file("lib"), outside.resolve("lib"));
    SortedMap<String, String> outsideBefore = FileTrees.snapshot(outside, true);
    SortedMap<String, String> projectBefore = FileTrees.snapshot(fx.project, true);

    RestoreResult undo = tab.undo();
    assertThat(undo.applied()).isFalse();
    // gen/out.txt is no longer a file of the project (what is behind the link is not read), as the undo wants;
    // lib/a.txt must come back, and cannot through the link
    assertThat(undo.conflicts()).containsExactly("lib/a.txt");
    assertThatThrownBy(() -> tab.restore(0, RestoreMode.BOTH, true))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("symbolic link");
    assertThat(FileTrees.snapshot(outside, true)).isEqualTo(outsideBefore);
    assertThat(FileTrees.snapshot(fx.project, true)).isEqualTo(projectBefore);
    assertThat(tab.live()).isEqualTo(1);
  }

  // ------------------------------------------------------------------------------- modes

  @Test
  void executableBitFlipsAreRestored() throws IOException {
    fx.writeExternally("script.sh", "#!/bin/sh\n");
    fx.writeExternally("private.sh", "#!/bin/sh\nsecret\n");
    fx.writeExternally("was-exec.sh", "#!/bin/sh\nexec\n");
    Files.setPosixFilePermissions(fx.file("script.sh"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(fx.file("private.sh"), PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(fx.file("was-exec.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));

    Turn turn = tab.begin();
    tool.chmod(turn, "script.sh", "rwxr-xr-x"); // mode only
    tool.write(turn, "private.sh", "#!/bin/sh\nsecret, edited\n");
    tool.chmod(turn, "private.sh", "rwx------"); // mode and content
    tool.chmod(turn, "was-exec.sh", "rw-r--r--"); // and the other way
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    FileChange modeOnly = cp.changes().stream().filter(c -> c.path().equals("script.sh")).findFirst().orElseThrow();
    assertThat(modeOnly.before().kind()).isEqualTo(FileKind.REGULAR);
    assertThat(modeOnly.after().kind()).isEqualTo(FileKind.EXECUTABLE);
    assertThat(modeOnly.after().blob()).isEqualTo(modeOnly.before().blob());

    tab.undo();
    assertThat(tool.permissions("script.sh")).isEqualTo("rw-r--r--");
    assertThat(tool.permissions("private.sh")).isEqualTo("rw-------");
    assertThat(tool.text("private.sh")).isEqualTo("#!/bin/sh\nsecret\n");
    assertThat(tool.permissions("was-exec.sh")).isEqualTo("rwxr-xr-x");
    tab.redo();
    assertThat(tool.permissions("script.sh")).isEqualTo("rwxr-xr-x");
    assertThat(tool.permissions("private.sh")).isEqualTo("rwx------");
    assertThat(tool.text("private.sh")).isEqualTo("#!/bin/sh\nsecret, edited\n");
    assertThat(tool.permissions("was-exec.sh")).isEqualTo("rw-r--r--");
  }

  // --------------------------------------------------------------------------- conflicts

  @Test
  void aDirectoryWhereAFileBelongsIsAConflictAndNothingChanges() throws IOException {
    fx.writeExternally("b.txt", "b0\n");
    Turn turn = tab.begin();
    tool.write(turn, "b.txt", "b1\n");
    tool.write(turn, "f", "f1\n");
    turn.finish(CheckpointStatus.DONE);
    tab.undo();
    fx.writeExternally("f/inner.txt", "the user's directory\n");
    SortedMap<String, String> before = FileTrees.snapshot(fx.project, true);
    List<String> tags = fx.tags("edge");

    RestoreResult redo = tab.redo();
    assertThat(redo.applied()).isFalse();
    assertThat(redo.conflicts()).containsExactly("f");
    assertThat(redo.written()).isEmpty();
    assertThat(FileTrees.snapshot(fx.project, true)).isEqualTo(before);
    assertThat(tab.live()).isZero();

    assertThatThrownBy(() -> tab.restore(1, RestoreMode.BOTH, true))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("f is a directory");
    assertThat(FileTrees.snapshot(fx.project, true)).isEqualTo(before);
    assertThat(fx.tags("edge")).isEqualTo(tags); // no rescue tag either
    assertThat(tab.live()).isZero();
  }

  @Test
  void aFileWhereADirectoryBelongsIsAConflictAndNothingChanges() throws IOException {
    fx.writeExternally("b.txt", "b0\n");
    Turn turn = tab.begin();
    tool.write(turn, "b.txt", "b1\n");
    tool.write(turn, "d/f.txt", "f1\n");
    turn.finish(CheckpointStatus.DONE);
    tab.undo();
    fx.writeExternally("d", "the user's file\n");
    SortedMap<String, String> before = FileTrees.snapshot(fx.project, true);
    List<String> tags = fx.tags("edge");

    RestoreResult redo = tab.redo();
    assertThat(redo.applied()).isFalse();
    assertThat(redo.conflicts()).containsExactly("d/f.txt");
    assertThat(FileTrees.snapshot(fx.project, true)).isEqualTo(before);
    assertThat(tab.live()).isZero();

    assertThatThrownBy(() -> tab.restore(1, RestoreMode.BOTH, true))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("d is a file where a directory is needed");
    assertThat(FileTrees.snapshot(fx.project, true)).isEqualTo(before);
    assertThat(fx.tags("edge")).isEqualTo(tags);
  }

  // ------------------------------------------------------------------------------- paths

  @Test
  void invalidPathsAreRefusedWithAClearMessage() throws IOException {
    fx.writeExternally("sub/.git/config", "[core]\n");
    Turn turn = tab.begin();
    // a backslash is no separator here: "back\\slash" is a file name like another (ShellCaptureTest records one)
    for (String path : List.of("../x", "/abs", "/etc/passwd", "a/../b", "a/./b", "./a", "a//b", "dir/", "", "..",
        "nul\0byte")) {
      assertThatThrownBy(() -> turn.read(path)).as("read %s", path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("Not a project-relative file path");
      assertThatThrownBy(() -> turn.record(path, FileState.absent(), FileState.regular("x"))).as("record %s", path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("Not a project-relative file path");
    }
    for (String path : List.of(".git/config", ".git", ".git/hooks/pre-commit", "sub/.git/config", ".GIT/config",
        "sub/.Git")) {
      assertThatThrownBy(() -> turn.read(path)).as("read %s", path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(".git");
      assertThatThrownBy(() -> turn.record(path, FileState.absent(), FileState.regular("x"))).as("record %s", path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(".git");
    }
    assertThat(turn.changes()).isEmpty();
    tool.write(turn, "fine.txt", "fine\n");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(cp.changes()).extracting(FileChange::path).containsExactly("fine.txt");
    assertThat(fx.tags("edge")).containsExactly("refs/tags/waymark/edge/1");
    assertThat(temp.resolve("x")).doesNotExist();
  }

  // ------------------------------------------------------------------------------ helpers

  private void assertLink(String path, String target) throws IOException {
    assertThat(Files.isSymbolicLink(fx.file(path))).as("%s is a link", path).isTrue();
    assertThat(Files.readSymbolicLink(fx.file(path)).toString()).isEqualTo(target);
  }

  private static void writeRandom(Path file, long seed, long size) throws IOException {
    Random random = new Random(seed);
    byte[] chunk = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long left = size; left > 0; left -= chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    }
  }
}
