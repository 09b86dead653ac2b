package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the observed capture of a shell command must never lose or let through, as an adversary
 * found it: an ignored directory renamed, tracked source under a directory named like build
 * output, ignore rules the agent added, special files and mode bits. Each command runs after a
 * first one, so that both the whole walk and the watch-driven scan are exercised.
 */
@Tag("process")
class ObservedCaptureTest {
  private static final long MAX = 1 << 20;
  @TempDir Path temp;
  Path project;
  ShadowStore store;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    assumeTrue(System.getProperty("os.name").startsWith("Linux"), "shell commands are Linux ones here");
    project = Files.createDirectories(temp.resolve("project"));
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private int opened;

  private void openStore() {
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    tab = store.openTab("t" + (++opened));
  }

  private void reopen() {
    store.close();
    openStore();
  }

  private void writeOld(String path, String content) throws IOException {
    Path file = project.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, UTF_8);
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
  }

  private String read(String path) throws IOException {
    return Files.readString(project.resolve(path), UTF_8);
  }

  private static void sh(Path dir, String script) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
  }

  /** Runs {@code script} as one command of a turn; returns what it recorded and what it did not. */
  private WorkTreeChanges command(String script) throws Exception {
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    sh(project, script);
    WorkTreeChanges changes = snapshot.recordChanges();
    turn.finish(CheckpointStatus.DONE);
    return changes;
  }

  private static List<String> paths(WorkTreeChanges changes) {
    return changes.recorded().stream().map(FileChange::path).sorted().toList();
  }

  private static List<String> skipped(WorkTreeChanges changes) {
    return changes.skipped().stream().map(s -> s.path() + ": " + s.reason()).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"data", "build"})
  void renamingAnIgnoredDirectoryIsNotTakenForNewFilesThatUndoWouldDelete(String dir) throws Exception {
    writeOld(".gitignore", "data/\n");
    writeOld("a.txt", "a\n");
    writeOld(dir + "/db.sqlite", "the user's database\n");
    openStore();
    command("echo warm > a.txt"); // the next command starts from the watch's scan

    WorkTreeChanges renamed = command("mv " + dir + " " + dir + "-old");

    assertThat(paths(renamed)).doesNotContain(dir + "-old/db.sqlite");
    assertThat(skipped(renamed)).contains(dir + "-old/db.sqlite: moved from " + dir + "/, which was "
        + (dir.equals("data") ? "ignored by .gitignore" : "excluded by Waymark (build output, dependencies, caches)")
        + "; not recorded, and undo leaves it");
    tab.undo();
    assertThat(read(dir + "-old/db.sqlite")).as("undo never deletes what no checkpoint holds")
        .isEqualTo("the user's database\n");
  }

  /** Opens the store; after a first command when {@code warm}, so that the next starts from the watch's scan. */
  private void openStore(boolean warm) throws Exception {
    writeOld("a.txt", "a\n");
    openStore();
    if (warm) {
      command("echo warm > a.txt");
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aFileTheCommandCreatedInAnEmptyIgnoredDirectoryAndMovedOutIsRecordedAndUndone(boolean warm) throws Exception {
    writeOld(".gitignore", "src/\n");
    Files.createDirectories(project.resolve("src"));
    openStore(warm);

    WorkTreeChanges moved = command("echo new > src/c.txt && mv src lib");

    assertThat(paths(moved)).containsExactly("lib/c.txt");
    tab.undo();
    assertThat(project.resolve("lib/c.txt")).as("the command made it: undo takes it away").doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aFileTheCommandCreatedInAnIgnoredDirectoryItMadeAndMovedOutIsRecordedAndUndone(boolean warm) throws Exception {
    writeOld(".gitignore", "src/\n");
    openStore(warm);

    WorkTreeChanges moved = command("mkdir src && echo new > src/c.txt && mv src lib");

    assertThat(paths(moved)).containsExactly("lib/c.txt");
    tab.undo();
    assertThat(project.resolve("lib/c.txt")).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theUsersFilesMovedOutOfAnIgnoredDirectoryWithOneTheCommandAddedAreNeitherRecordedNorUndone(boolean warm)
      throws Exception {
    writeOld(".gitignore", "src/\n");
    writeOld("src/old.txt", "the user's\n");
    openStore(warm);

    WorkTreeChanges moved = command("echo new > src/c.txt && mv src lib");

    assertThat(paths(moved)).doesNotContain("lib/old.txt");
    tab.undo();
    assertThat(read("lib/old.txt")).as("undo never deletes what no checkpoint holds").isEqualTo("the user's\n");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void anIgnoredFileTheCommandChangedAndMovedOutIsNotRecordedAsNewSoUndoCannotDeleteIt(boolean warm) throws Exception {
    writeOld(".gitignore", "src/\n");
    writeOld("src/c.txt", "the user's\n");
    openStore(warm);

    WorkTreeChanges moved = command("echo changed > src/c.txt && mv src lib");

    assertThat(paths(moved)).isEmpty();
    tab.undo();
    assertThat(read("lib/c.txt")).as("no checkpoint holds what it was: better left than deleted").isEqualTo("changed\n");
  }

  @Test
  void renamingAnIgnoredFileIsNotTakenForANewFileEither() throws Exception {
    writeOld(".gitignore", ".env\n");
    writeOld(".env", "SECRET=1\n");
    openStore();

    WorkTreeChanges renamed = command("mv .env env.txt");

    assertThat(paths(renamed)).isEmpty();
    tab.undo();
    assertThat(read("env.txt")).isEqualTo("SECRET=1\n");
  }

  private void gitRepository() throws Exception {
    GitCli.requireGit();
    GitCli.ok(project, "init", "-q");
  }

  private void commitAll() throws Exception {
    GitCli.ok(project, "add", "-A", "-f");
    GitCli.ok(project, "-c", "user.name=u", "-c", "user.email=u@example.com", "commit", "-q", "-m", "start");
  }

  @Test
  void sourceGitTracksIsRecordedUnderADirectoryNamedLikeBuildOutputOrIgnored() throws Exception {
    gitRepository();
    writeOld(".gitignore", "generated/\n");
    writeOld("src/main/java/com/acme/build/Main.java", "class Main {}\n");
    writeOld("dist/README", "tracked\n");
    writeOld("src/generated/Keep.java", "class Keep {}\n");
    commitAll();
    openStore();
    command("true");

    WorkTreeChanges edited = command("sed -i s/Main/Edited/ src/main/java/com/acme/build/Main.java && echo more >> dist/README"
        + " && echo x > src/generated/Keep.java && echo junk > dist/untracked.o && echo junk > src/generated/new.java");

    assertThat(paths(edited)).containsExactly("dist/README", "src/generated/Keep.java",
        "src/main/java/com/acme/build/Main.java");
    assertThat(skipped(edited)).contains("dist/untracked.o: excluded by Waymark (build output, dependencies, caches); not recorded",
        "src/generated/new.java: ignored by .gitignore; not recorded");
    tab.undo();
    assertThat(read("src/main/java/com/acme/build/Main.java")).isEqualTo("class Main {}\n");
    assertThat(read("dist/README")).isEqualTo("tracked\n");
    assertThat(read("src/generated/Keep.java")).isEqualTo("class Keep {}\n");
    assertThat(read("dist/untracked.o")).as("what no rule lets in is left alone").isEqualTo("junk\n");
  }

  @Test
  void aFileTheUserHadIsRecordedWhenDeletedWhateverIgnoreRuleTheAgentAddedSince() throws Exception {
    gitRepository();
    writeOld("notes.txt", "the user's notes\n");
    openStore();
    command("echo notes.txt >> .git/info/exclude"); // one turn hides the file

    reopen(); // a later Waymark reads the new rule
    WorkTreeChanges removed = command("rm notes.txt && echo x > other.txt && echo made > made.txt"
        + " && echo made.txt >> .git/info/exclude");
    assertThat(paths(removed)).contains("notes.txt");
    tab.undo();
    assertThat(read("notes.txt")).isEqualTo("the user's notes\n");

    command("echo fresh.txt >> .git/info/exclude");
    reopen();
    WorkTreeChanges next = command("echo new > fresh.txt");
    assertThat(skipped(next)).as("the message names the rule that applies")
        .contains("fresh.txt: ignored by .git/info/exclude; not recorded");
  }

  private int mode(String path) throws IOException {
    return (Integer) Files.getAttribute(project.resolve(path), "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
  }

  @Test
  void setuidSetgidAndStickyBitsAreRecordedAndUndone() throws Exception {
    writeOld("tool.sh", "#!/bin/sh\n");
    writeOld("keep.sh", "#!/bin/sh\n");
    sh(project, "chmod 755 tool.sh && chmod 6755 keep.sh");
    openStore();
    command("true");

    WorkTreeChanges raised = command("chmod 4755 tool.sh && chmod 755 keep.sh");

    assertThat(paths(raised)).containsExactly("keep.sh", "tool.sh");
    tab.undo();
    assertThat(mode("tool.sh")).as("no longer setuid").isEqualTo(0755);
    assertThat(mode("keep.sh")).as("setuid and setgid again").isEqualTo(06755);
    tab.redo();
    assertThat(mode("tool.sh")).isEqualTo(04755);
    assertThat(mode("keep.sh")).isEqualTo(0755);

    WorkTreeChanges sticky = command("chmod +t tool.sh");
    assertThat(paths(sticky)).as(skipped(sticky).toString()).containsExactly("tool.sh");
    tab.undo();
    assertThat(mode("tool.sh")).isEqualTo(04755);
  }

  @Test
  void aFifoMadeInPlaceOfAFileIsTheTurnsChangeAndUndoBringsTheFileBack() throws Exception {
    writeOld("app.conf", "port = 80\n");
    openStore();
    command("true");

    WorkTreeChanges replaced = command("rm app.conf && mkfifo app.conf");

    assertThat(paths(replaced)).containsExactly("app.conf");
    RestoreResult undone = tab.undo();
    assertThat(undone.applied()).as(undone.toString()).isTrue();
    assertThat(read("app.conf")).isEqualTo("port = 80\n");
    assertThat(tab.redo().applied()).isTrue();
    assertThat(project.resolve("app.conf")).doesNotExist();
  }

  @Test
  void aDirectoryMadeAgainWithTheSameInodeIsLookedIntoAndWatchedAgain() throws Exception {
    writeOld("keep.txt", "k\n");
    Files.createDirectories(project.resolve("out"));
    openStore();
    command("true");
    Object inode = Files.getAttribute(project.resolve("out"), "unix:ino");

    // ext4 gives the new directory the inode just freed, nearly always; the files made in it must be
    // recorded whether or not it did, so the test goes on either way (a skip would hide a failure)
    command("rm -rf out && mkdir out");
    for (int i = 0; i < 5 && !inode.equals(Files.getAttribute(project.resolve("out"), "unix:ino")); i++) {
      command("rm -rf out && mkdir out");
    }
    WorkTreeChanges made = command("echo new > out/b.txt");
    WorkTreeChanges later = command("echo later > out/c.txt");

    assertThat(paths(made)).containsExactly("out/b.txt");
    assertThat(paths(later)).containsExactly("out/c.txt");
    tab.undo();
    tab.undo();
    assertThat(project.resolve("out/b.txt")).doesNotExist();
    assertThat(project.resolve("out/c.txt")).doesNotExist();
  }

  @Test
  void aWriteThroughAHardLinkIsRecordedForEveryNameOfTheFile() throws Exception {
    writeOld("f.txt", "original\n");
    writeOld("other.txt", "o\n");
    sh(project, "ln f.txt g.txt");
    openStore();
    command("true");

    WorkTreeChanges written = command("echo changed > g.txt");

    assertThat(paths(written)).containsExactly("f.txt", "g.txt");
    tab.undo();
    assertThat(read("f.txt")).isEqualTo("original\n");
    assertThat(read("g.txt")).isEqualTo("original\n");
  }

  @Test
  void aRedoWhoseFilesWereAlreadyRestoredWhenWaymarkWasKilledGoesThroughEvenWhereAFileBecameADirectory()
      throws Exception {
    writeOld("ff", "a file\n");
    openStore();
    command("true");
    command("rm ff && mkdir ff && echo x > ff/x");
    assertThat(tab.undo().applied()).isTrue();
    // the redo wrote every file, and Waymark was killed before it could note where the tab stood
    sh(project, "rm ff && mkdir ff && echo x > ff/x");

    RestoreResult redone = tab.redo();

    assertThat(redone.applied()).as(redone.toString()).isTrue();
    assertThat(read("ff/x")).isEqualTo("x\n");
    assertThat(tab.undo().applied()).isTrue();
    assertThat(read("ff")).isEqualTo("a file\n");
  }
}
