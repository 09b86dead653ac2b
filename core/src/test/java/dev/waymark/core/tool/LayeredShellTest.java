package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.TagNames;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.shell.ProjectLocks;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.GitCli;
import dev.waymark.core.testing.Processes;
import dev.waymark.core.testing.Running;
import dev.waymark.core.wording.Wording;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sandboxed {@code run_shell} in a copy-on-write layer: what the command changed is exactly what it
 * wrote, so nobody else's write during it is taken for its own, and tabs' commands run at once.
 */
@Tag("process")
class LayeredShellTest {
  @TempDir Path temp;
  ToolFixture f;

  ToolSettings settings;

  @BeforeEach
  void open() throws IOException {
    settings = ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
    f = new ToolFixture(temp, settings);
  }

  @Test
  void statusSaysASandboxedCommandRunsInALayerOfItsOwnAndAnUnsandboxedOneIsFoundByComparison() {
    assertThat(Wording.shellCapture(f.store.noLayer(settings.sandbox().bwrap())))
        .startsWith("each in a copy-on-write layer of its own").contains("tabs' commands run at once");
    assertThat(Wording.shellCapture(f.store.noLayer(Optional.empty())))
        .contains("comparing the project before and after", "no layer: commands are not sandboxed", "take turns");
  }

  @AfterEach
  void close() {
    f.close();
  }

  private List<Path> layersLeft() throws IOException {
    Path layers = f.store.shadowDirectory().resolveSibling("layers");
    if (!Files.isDirectory(layers)) {
      return List.of(); // no command has made one yet
    }
    try (var entries = Files.list(layers)) {
      return entries.filter(p -> p.getFileName().toString().startsWith("layer-")).toList();
    }
  }

  @Test
  void anEditorSaveDuringTheCommandIsNotUndoneWithIt() throws Exception {
    f.write("notes.txt", "before\n");
    var command = CompletableFuture.supplyAsync(() -> f.shell("sleep 1; echo passed > test.log"));
    commandRuns("sleep 1");
    f.write("notes.txt", "saved by the user during the command\n");
    ToolResult result = command.get();
    assertThat(result.content()).contains("created test.log").doesNotContain("notes.txt");
    assertThat(f.recorded()).containsExactly("test.log");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.exists("test.log")).isFalse();
    assertThat(f.read("notes.txt")).isEqualTo("saved by the user during the command\n");
  }

  @Test
  void anotherTabsWriteDuringTheCommandStaysThatTabs() throws Exception {
    CheckpointTree other = f.store.openTab("tab2");
    Turn otherTurn = other.begin();
    var command = CompletableFuture.supplyAsync(() -> f.shell("sleep 1; echo mine > mine.txt"));
    commandRuns("sleep 1");
    ToolResult wrote = f.tools.find("write_file").orElseThrow().run(ToolFixture.args("path", "other.txt", "content",
        "written by the other tab\n"), new ToolContext(f.project, otherTurn, new Cancellation()));
    assertThat(wrote.isError()).isFalse();
    command.get();
    assertThat(f.recorded()).containsExactly("mine.txt");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("other.txt")).isEqualTo("written by the other tab\n");
    assertThat(f.exists("mine.txt")).isFalse();
    otherTurn.finish(CheckpointStatus.DONE);
  }

  @Test
  void twoTabsCommandsRunAtOnceEachWithItsOwnFile() throws Exception {
    CheckpointTree other = f.store.openTab("tab2");
    Turn otherTurn = other.begin();
    var first = CompletableFuture.supplyAsync(() -> f.shell("sleep 5; touch a"));
    commandRuns("sleep 5");
    ToolResult second = f.tools.find("run_shell").orElseThrow().run(ToolFixture.args("command", "touch b"),
        new ToolContext(f.project, otherTurn, new Cancellation()));
    // no timing: had the second waited for the first, the first would be done by now
    assertThat(first).as("the second tab's command ran while the first's still did").isNotDone();
    assertThat(second.content()).contains("created b").doesNotContain("waited");
    first.get();
    assertThat(f.recorded()).containsExactly("a");
    assertThat(otherTurn.changes()).extracting(c -> c.path()).containsExactly("b");
    otherTurn.finish(CheckpointStatus.DONE);
  }

  @Test
  void deleteRenameLinkAndChmodAreRecordedAndUndone() throws Exception {
    f.write("gone/x.txt", "x\n");
    f.write("old/y.txt", "y\n");
    f.write("old/sub/z.txt", "z\n");
    f.write("file.txt", "file\n");
    f.write("run.sh", "echo hi\n");
    f.nextTurn();
    Map<String, String> before = f.tree();
    ToolResult result = f.shell("rm -rf gone && mv old new && rm file.txt && ln -s run.sh file.txt && chmod +x run.sh");
    assertThat(result.isError()).as(result.content()).isFalse();
    assertThat(f.recorded()).containsExactly("file.txt", "gone/x.txt", "new/sub/z.txt", "new/y.txt", "old/sub/z.txt",
        "old/y.txt", "run.sh");
    assertThat(Files.isSymbolicLink(f.file("file.txt"))).isTrue();
    assertThat(Files.isExecutable(f.file("run.sh"))).isTrue();
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.tree()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "rm -rf docs && echo 'see wiki' > docs",
      "rm -rf lib && ln -s ../shared/lib lib",
      "rm -rf src/deep && echo flat > src/deep",
      "rm notes.txt && mkdir -p notes.txt/a && echo x > notes.txt/a/b",
      "rm link && mkdir link && echo in > link/f",
      "rm -rf docs && ln -s README docs && rm notes.txt && mkdir notes.txt"})
  void everyChangeOfKindIsAppliedRecordedAndUndone(String command) throws Exception {
    f.write("docs/guide.md", "guide\n");
    f.write("docs/api/index.md", "api\n");
    f.write("lib/core/index.js", "lib\n");
    f.write("src/deep/er/x.java", "x\n");
    f.write("notes.txt", "notes\n");
    f.write("README", "readme\n");
    Files.createSymbolicLink(f.file("link"), Path.of("README"));
    f.nextTurn();
    Map<String, String> before = f.tree();
    Path reference = temp.resolve("reference");
    copyTree(f.project, reference);
    Process plain = new ProcessBuilder("/bin/sh", "-c", command).directory(reference.toFile()).start();
    assertThat(plain.waitFor()).isZero();
    ToolResult result = f.shell(command);
    assertThat(result.isError()).as(result.content()).isFalse();
    assertThat(result.content()).contains("Files changed").doesNotContain("Could not").doesNotContain("Not applied");
    assertThat(f.tree()).isEqualTo(ToolFixture.tree(reference));
    assertThat(layersLeft()).isEmpty();
    f.finish();
    var undone = f.tab.undo();
    assertThat(undone.applied()).as(undone.toString()).isTrue();
    assertThat(f.tree()).isEqualTo(before);
    assertThat(f.tab.redo().applied()).isTrue();
    assertThat(f.tree()).isEqualTo(ToolFixture.tree(reference));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (var all = Files.walk(from)) {
      for (Path path : all.toList()) {
        Path target = to.resolve(from.relativize(path).toString());
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }

  @Test
  void aLayerThatCannotBeRecordedIsAFailureSaidFirstNeverASuccessWithNoFilesChanged() throws Exception {
    f.shell("true"); // the store and the layers' directory exist
    Path objects = f.store.shadowDirectory().resolve("objects");
    Path aside = objects.resolveSibling("objects.aside");
    Files.move(objects, aside); // as a full disk or a broken store would: nothing can be stored
    Files.writeString(objects, "not a directory\n");
    ToolResult result;
    try {
      result = f.shell("echo x > new.txt");
    } finally {
      Files.delete(objects);
      Files.move(aside, objects);
    }
    assertThat(result.isError()).as(result.content()).isTrue();
    assertThat(result.content()).startsWith(ToolResult.NOT_RECORDED).contains("[exit code 0]");
    assertThat(f.exists("new.txt")).as("not applied unrecorded").isFalse();
  }

  @Test
  void aCommandIsNotRunWhenTheStoreItWouldBeRecordedInWasDeletedAndSaysSo() throws Exception {
    f.shell("true"); // the store and the layers' directory exist
    Path store = f.store.shadowDirectory();
    try (var walk = Files.walk(store)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }

    ToolResult result = f.shell("echo x > new.txt; echo ran > ran.txt");

    assertThat(result.isError()).as(result.content()).isTrue();
    assertThat(result.content()).startsWith("The command was not run").contains(store.toString(), "is gone");
    assertThat(f.exists("new.txt")).as("nothing applied unrecorded").isFalse();
    assertThat(f.exists("ran.txt")).isFalse();
  }

  @Test
  void aClashKeepsTheUsersFileAndSaysSo() throws Exception {
    f.write("a.txt", "start\n");
    f.nextTurn();
    var command = startedAndWrote("echo command > a.txt; sleep 1", "a.txt");
    f.write("a.txt", "the user's\n");
    ToolResult result = command.get();
    assertThat(result.content()).contains("Not applied").contains("a.txt").contains("rescued/")
        .contains("in this checkpoint").doesNotContain("changed a.txt")
        .as("said on the first line, which exec and a folded tool call show").startsWith("[1 of the command's file change not applied");
    assertThat(f.read("a.txt")).isEqualTo("the user's\n");
    assertThat(f.recorded()).as("the command's version is in its checkpoint").containsExactly("a.txt");
    assertThat(commandsVersion("a.txt")).isEqualTo("command\n");
    f.finish();
    f.tab.undo();
    assertThat(f.read("a.txt")).as("undoing the command leaves the user's edit").isEqualTo("the user's\n");
  }

  @Test
  void anEditorsSaveOfAFileTheCommandAlsoChangedIsMergedWithItFromWhereTheCommandStarted() throws Exception {
    f.write("notes.txt", "one\ntwo\nthree\nfour\nfive\n");
    f.nextTurn();
    f.store.prepareShellCapture(10L << 20).join(); // the scan Waymark takes as it opens the project
    var command = startedAndWrote("sed -i 's/five/FIVE/' notes.txt; sleep 1", "notes.txt");
    f.write("notes.txt", "ONE, saved by the user\ntwo\nthree\nfour\nfive\n");
    ToolResult result = command.get();
    assertThat(result.content()).doesNotContain("Not applied");
    assertThat(f.read("notes.txt")).as("both changes, merged three-way from what the file held as the command started")
        .isEqualTo("ONE, saved by the user\ntwo\nthree\nfour\nFIVE\n");
    f.finish();
    f.tab.undo();
    assertThat(f.read("notes.txt")).as("undoing the command leaves the user's save").isEqualTo(
        "ONE, saved by the user\ntwo\nthree\nfour\nfive\n");
  }

  @Test
  void aFileGitTracksIsRecordedAndUndoneUnderADirectoryNamedLikeBuildOutputOrIgnoredWithNoScanAtAll() throws Exception {
    f.write(".gitignore", "generated/\n");
    f.write("src/main/java/com/acme/build/Main.java", "class Main {}\n");
    f.write("dist/README", "tracked\n");
    f.write("src/generated/Keep.java", "class Keep {}\n");
    GitCli.ok(f.project, "init", "-q");
    GitCli.ok(f.project, "add", ".");
    GitCli.ok(f.project, "add", "-f", "src/generated/Keep.java");
    GitCli.ok(f.project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sources");
    f.close();
    f = new ToolFixture(temp, settings); // no scan is taken: a process that runs only sandboxed commands never walks
    ToolResult edited = f.shell("sed -i s/Main/Edited/ src/main/java/com/acme/build/Main.java && echo more >> dist/README"
        + " && echo x > src/generated/Keep.java && echo junk > dist/untracked.o");

    assertThat(edited.content()).doesNotContain("Main.java: excluded", "README: excluded", "Keep.java: ignored")
        .contains("dist/untracked.o");
    f.finish();
    f.tab.undo();
    assertThat(f.read("src/main/java/com/acme/build/Main.java")).isEqualTo("class Main {}\n");
    assertThat(f.read("dist/README")).isEqualTo("tracked\n");
    assertThat(f.read("src/generated/Keep.java")).isEqualTo("class Keep {}\n");
    assertThat(f.read("dist/untracked.o")).as("what no rule lets in is left alone").isEqualTo("junk\n");
  }

  @Test
  void withNoScanAtAllAnEditorsSaveOfAFileGitHoldsIsMergedFromTheUsersIndex() throws Exception {
    f.write("notes.txt", "one\ntwo\nthree\nfour\nfive\n");
    try (Git git = Git.init().setDirectory(f.project.toFile()).call()) {
      git.add().addFilepattern("notes.txt").call();
      git.commit().setMessage("notes").setAuthor("t", "t@example.com").setCommitter("t", "t@example.com").setSign(false)
          .call();
    }
    f.nextTurn(); // no scan is taken: a process that runs only sandboxed commands never walks the project
    var command = startedAndWrote("sed -i 's/five/FIVE/' notes.txt; sleep 1", "notes.txt");
    f.write("notes.txt", "ONE, saved by the user\ntwo\nthree\nfour\nfive\n");
    assertThat(command.get().content()).doesNotContain("Not applied");
    assertThat(f.read("notes.txt")).isEqualTo("ONE, saved by the user\ntwo\nthree\nfour\nFIVE\n");
    f.finish();
    f.tab.undo();
    assertThat(f.read("notes.txt")).as("undoing the command leaves the user's save").isEqualTo(
        "ONE, saved by the user\ntwo\nthree\nfour\nfive\n");
  }

  @Test
  void aFileChangedSinceTheLastScanHasNoKnownStartSoASaveDuringTheCommandClashesRatherThanMergeFromAnOlderVersion()
      throws Exception {
    f.write("notes.txt", "one\ntwo\nthree\nfour\nfive\n");
    f.nextTurn();
    f.store.prepareShellCapture(10L << 20).join();
    f.write("notes.txt", "one\ntwo\nTHREE\nfour\nfive\n"); // after the scan: it no longer vouches for the file
    var command = startedAndWrote("sed -i 's/five/FIVE/' notes.txt; sleep 1", "notes.txt");
    f.write("notes.txt", "ONE\ntwo\nthree\nfour\nfive\n"); // the user takes THREE back and changes ONE
    ToolResult result = command.get();
    // merged from the scan's version, THREE would come back: the user's file is kept whole instead
    assertThat(result.content()).contains("Not applied").contains("notes.txt");
    assertThat(f.read("notes.txt")).isEqualTo("ONE\ntwo\nthree\nfour\nfive\n");
  }

  @Test
  void aFileAnEarlierCommandChangedIsKnownAgainOnceTheScanIsBroughtUpToDateSoASaveDuringTheNextCommandMerges()
      throws Exception {
    f.write("notes.txt", "one\ntwo\nthree\nfour\nfive\n");
    f.nextTurn();
    f.store.prepareShellCapture(10L << 20).join();
    assertThat(f.shell("sed -i 's/three/THREE/' notes.txt").content()).doesNotContain("Not applied");
    // Waymark brings its scan up to date in the background after an apply; here, at once
    f.store.prepareShellCapture(10L << 20).join();
    var command = startedAndWrote("sed -i 's/five/FIVE/' notes.txt; sleep 1", "notes.txt");
    f.write("notes.txt", "ONE\ntwo\nTHREE\nfour\nfive\n");
    assertThat(command.get().content()).doesNotContain("Not applied");
    assertThat(f.read("notes.txt")).isEqualTo("ONE\ntwo\nTHREE\nfour\nFIVE\n");
  }

  @Test
  void anEditorsSaveOfTheSameLinesTheCommandChangedClashesAndKeepsTheUsersFile() throws Exception {
    f.write("notes.txt", "one\ntwo\n");
    f.nextTurn();
    f.store.prepareShellCapture(10L << 20).join();
    var command = startedAndWrote("sed -i 's/two/TWO/' notes.txt; sleep 1", "notes.txt");
    f.write("notes.txt", "one\ntwo, the user's\n");
    ToolResult result = command.get();
    assertThat(result.content()).contains("Not applied").contains("notes.txt");
    assertThat(f.read("notes.txt")).isEqualTo("one\ntwo, the user's\n");
  }

  /**
   * Starts {@code command}, which writes {@code path} first and then sleeps a second, and returns
   * once its layer holds its version of {@code path}: what the test does next happens while the
   * command runs, after its write, however slowly the sandbox started.
   */
  private CompletableFuture<ToolResult> startedAndWrote(String command, String path) throws Exception {
    var running = CompletableFuture.supplyAsync(() -> f.shell(command));
    Eventually.until("the command wrote " + path + " in its layer",
        () -> layersLeft().stream().anyMatch(layer -> Files.exists(layer.resolve("upper").resolve(path))));
    return running;
  }

  /**
   * Returns once a process of this JVM's commands (in its sandbox, a descendant all the same) runs
   * {@code exact}, such as the {@code sleep} the command is in: what the test does next happens
   * while the command runs, after what it did before that sleep.
   */
  private static void commandRuns(String exact) {
    Eventually.until("a command runs " + exact,
        () -> ProcessHandle.current().descendants().anyMatch(p -> p.isAlive() && Processes.is(p, exact)));
  }

  /** Returns once a command's layer holds {@code path} with {@code content}: a background job wrote it there. */
  private void layerHolds(String path, String content) {
    Eventually.until("a layer holds " + path, () -> layersLeft().stream().map(layer -> layer.resolve("upper").resolve(path))
        .anyMatch(file -> Files.isRegularFile(file) && content.equals(readOrNull(file))));
  }

  private static String readOrNull(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException gone) {
      return null; // applied meanwhile, or not written yet
    }
  }

  /** Returns once no background job of the store's commands is left running (the layers' jobs have ended). */
  private void jobsEnded() {
    Eventually.until("the background jobs ended", () -> f.store.backgroundProcesses() == 0);
  }

  /**
   * {@code command} (which writes notes.txt, then sleeps a second) runs in a turn of its own, and
   * the user deletes notes.txt, which git tracks (Waymark knows it was there), once the command's
   * layer holds its version. Its result, after the deletion stood.
   */
  private ToolResult whileTheUserDeletesTrackedNotes(String command) throws Exception {
    f.write("notes.txt", "notes\n");
    GitCli.ok(f.project, "init", "-q");
    GitCli.ok(f.project, "add", "notes.txt");
    f.nextTurn();
    var running = startedAndWrote(command, "notes.txt");
    Files.delete(f.file("notes.txt"));
    ToolResult result = running.get();
    assertThat(result.content()).contains("Not applied").contains("notes.txt: deleted in the project");
    assertThat(f.exists("notes.txt")).as("the user's deletion stands").isFalse();
    return result;
  }

  /** Ends the turn and undoes it: the user's deletion of notes.txt still stands. */
  private void undoLeavesNotesDeleted() {
    f.finish();
    f.tab.undo();
    assertThat(f.exists("notes.txt")).as("undo does not bring back what the user deleted").isFalse();
  }

  @Test
  void aFileTheUserDeletedWhileTheCommandChangedItStaysDeleted() throws Exception {
    f.write("keep.txt", "kept\n"); // keep.txt's new name moved.txt Waymark does not know
    whileTheUserDeletesTrackedNotes("echo more >> notes.txt; mv keep.txt moved.txt; sleep 1");
    assertThat(f.read("moved.txt")).as("a file the command moved is not taken for one deleted meanwhile").isEqualTo("kept\n");
    assertThat(f.recorded()).containsExactly("keep.txt", "moved.txt", "notes.txt");
    assertThat(commandsVersion("notes.txt")).isEqualTo("notes\nmore\n");
    undoLeavesNotesDeleted();
    assertThat(f.read("keep.txt")).isEqualTo("kept\n");
  }

  @Test
  void aFileTheUserDeletedWhileTheCommandMovedAnotherOverItStaysDeleted() throws Exception {
    f.write("keep.txt", "kept\n");
    whileTheUserDeletesTrackedNotes("mv keep.txt notes.txt; sleep 1");
    assertThat(commandsVersion("notes.txt")).as("the command's version is kept in its checkpoint").isEqualTo("kept\n");
    undoLeavesNotesDeleted();
    assertThat(f.read("keep.txt")).isEqualTo("kept\n");
  }

  @Test
  void aTrackedFileTheUserDeletedWhileTheCommandRewroteItByRenameStaysDeleted() throws Exception {
    whileTheUserDeletesTrackedNotes("sed -i 's/notes/NOTES/' notes.txt; sleep 1");
    assertThat(commandsVersion("notes.txt")).isEqualTo("NOTES\n");
    undoLeavesNotesDeleted();
  }

  /** What the running checkpoint's tag holds at {@code path}, as {@code git show TAG:path} shows it. */
  private String commandsVersion(String path) {
    String tag = TagNames.tabPrefix(f.tab.tabId()) + f.turn.number();
    return new String(GitCli.ok(f.project, "--git-dir=" + f.store.shadowDirectory(), "show",
        tag + ":post/" + path).out(), StandardCharsets.UTF_8);
  }

  @Test
  void aFileWhoseNameIsNotUtf8IsAppliedNotRecordedAndTheRestOfTheCommandIsAppliedAsUsual() throws Exception {
    f.write("old.txt", "old\n");
    f.nextTurn();
    ToolResult r = f.shell("printf made > \"$(printf 'bad\\377.txt')\"; mkdir -p dir && printf deep > \"dir/$(printf 'x\\376')\"; "
        + "echo ok > ok.txt; rm old.txt");

    assertThat(r.content()).doesNotContain("Could not apply").contains("created ok.txt", "deleted old.txt")
        .contains("not UTF-8");
    assertThat(f.read("ok.txt")).isEqualTo("ok\n");
    assertThat(f.exists("old.txt")).isFalse();
    assertThat(rawNames(f.project)).contains("bad\\377.txt");
    assertThat(rawNames(f.project.resolve("dir"))).containsExactly("x\\376");
    assertThat(layersLeft()).isEmpty();
    assertThat(f.recorded()).containsExactlyInAnyOrder("ok.txt", "old.txt");
  }

  @Test
  void aFileWhoseNameIsNotUtf8ThatCannotBeAppliedBelowALinkIsSaidNotAppliedNeverApplied() throws Exception {
    f.write("d/keep.txt", "keep\n");
    Path go = Path.of("/var/tmp", "waymark-go-" + UUID.randomUUID()); // seen, read-only, in the sandbox
    try {
      f.nextTurn();
      var running = startedAndWrote("printf deep > \"d/$(printf 'x\\376')\"; echo w > w.txt;"
          + " while [ ! -e " + go + " ]; do sleep 0.05; done", "w.txt");
      Files.move(f.file("d"), f.file("d-old"));
      Files.createSymbolicLink(f.file("d"), f.file("d-old"));
      Files.writeString(go, "go\n");
      ToolResult r = running.get();

      assertThat(r.content()).contains("not UTF-8: not applied").doesNotContain("not UTF-8: applied");
      assertThat(rawNames(f.project.resolve("d-old"))).containsExactly("keep.txt");
      assertThat(f.read("w.txt")).isEqualTo("w\n");
    } finally {
      Files.deleteIfExists(go);
    }
  }

  @Test
  void filesWhoseNamesAreNotUtf8AreDeletedAsTheCommandDeletedThemAloneOrWithTheirDirectory() throws Exception {
    Process made = new ProcessBuilder("sh", "-c", "printf a > \"$(printf 'one\\377')\"; mkdir gone && "
        + "printf b > \"gone/$(printf 'two\\376')\" && printf c > gone/plain.txt").directory(f.project.toFile()).start();
    assertThat(made.waitFor()).isZero();
    f.nextTurn();
    ToolResult r = f.shell("rm \"$(printf 'one\\377')\"; rm -rf gone");
    assertThat(r.content()).doesNotContain("Could not apply").contains("deleted gone/plain.txt");
    assertThat(rawNames(f.project)).doesNotContain("one\\377", "gone");
    assertThat(layersLeft()).isEmpty();
  }

  /** The names in {@code dir} as the file system holds them, bytes above 127 written as octal escapes. */
  private static List<String> rawNames(Path dir) throws Exception {
    Process ls = new ProcessBuilder("ls", "-b", "-1", dir.toString()).start();
    String out = new String(ls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ls.waitFor()).isZero();
    return out.lines().toList();
  }

  @Test
  void aCommandStoppedByEscAppliesWhatItDidSoFar() throws Exception {
    var command = CompletableFuture.supplyAsync(() -> f.shell("echo early > early.txt; sleep 30; echo late > late.txt"));
    commandRuns("sleep 30"); // early.txt written
    f.cancellation.cancel();
    ToolResult result = command.get();
    assertThat(result.content()).contains("cancelled");
    assertThat(f.read("early.txt")).isEqualTo("early\n");
    assertThat(f.exists("late.txt")).isFalse();
    assertThat(f.recorded()).containsExactly("early.txt");
    assertThat(layersLeft()).as("the layer is gone once applied").isEmpty();
  }

  @Test
  void aBackgroundJobsWritesAreAppliedAndRecordedAtTheNextCommand() throws Exception {
    ToolResult started = f.shell("(sleep 1; echo late > late.txt) > /dev/null 2>&1 &");
    assertThat(started.content()).contains("background process(es) still running in the command's layer");
    jobsEnded();
    assertThat(f.exists("late.txt")).as("still in the layer").isFalse();
    ToolResult next = f.shell("cat late.txt");
    assertThat(next.content()).startsWith("late\n");
    assertThat(f.recorded()).containsExactly("late.txt");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.exists("late.txt")).isFalse();
  }

  @Test
  void aBackgroundJobStillRunningAsTheTurnEndsHasItsWritesSoFarRecordedAndTheRestLater() throws Exception {
    f.shell("(echo 1 > one.txt; sleep 1.5; echo 2 > two.txt) > /dev/null 2>&1 &");
    layerHolds("one.txt", "1\n");
    f.nextTurn(); // the job is still running: what it wrote so far is applied into #1
    assertThat(f.read("one.txt")).isEqualTo("1\n");
    assertThat(f.exists("two.txt")).isFalse();
    jobsEnded();
    f.finish(); // it has ended: the rest is applied into #2, and the layer is gone
    assertThat(f.read("two.txt")).isEqualTo("2\n");
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(c -> c.path()).containsExactly("one.txt");
    assertThat(f.tab.checkpoints().get(2).changes()).extracting(c -> c.path()).containsExactly("two.txt");
    assertThat(layersLeft()).isEmpty();
  }

  @Test
  void aBackgroundJobThatEndsWhileTheTabIsIdleIsToldOfAndThenAppliedAndRecordedInItsCheckpoint() throws Exception {
    CountDownLatch ended = new CountDownLatch(1);
    f.tab.onBackgroundEnded(ended::countDown);
    f.shell("echo now > now.txt; (sleep 1; echo late > late.txt) > /dev/null 2>&1 &");
    f.finish(); // the turn ends while the job runs: nothing else happens in the tab after it
    assertThat(f.exists("late.txt")).isFalse();

    assertThat(ended.await(10, TimeUnit.SECONDS)).as("told that the job ended").isTrue();
    var recorded = f.tab.settleBackground();

    assertThat(recorded.recorded()).extracting(c -> c.path()).containsExactly("late.txt");
    assertThat(f.read("late.txt")).isEqualTo("late\n");
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(c -> c.path()).containsExactly("late.txt", "now.txt");
    assertThat(layersLeft()).isEmpty();
    assertThat(f.tab.settleBackground().recorded()).as("once").isEmpty();
    f.tab.undo();
    assertThat(f.exists("late.txt")).isFalse();
    assertThat(f.exists("now.txt")).isFalse();
  }

  @Test
  void closingStopsTheJobsAndRecordsWhatTheyDid() throws Exception {
    f.shell("(echo 1 > one.txt; sleep 30; echo 2 > two.txt) > /dev/null 2>&1 &");
    layerHolds("one.txt", "1\n");
    f.finish(); // the turn ends with the job running: what it wrote so far is in #1
    f.close();
    assertThat(f.read("one.txt")).isEqualTo("1\n");
    assertThat(f.exists("two.txt")).isFalse();
    f = new ToolFixture(temp.resolve("again"), ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")))));
  }

  @Test
  void ignoredPathsAreAppliedButNotRecorded() throws Exception {
    f.write(".gitignore", "*.log\n");
    f.nextTurn();
    ToolResult result = f.shell("mkdir -p node_modules/m && echo js > node_modules/m/i.js; echo log > run.log; echo src > a.txt");
    assertThat(f.read("node_modules/m/i.js")).isEqualTo("js\n");
    assertThat(f.read("run.log")).isEqualTo("log\n");
    assertThat(f.recorded()).containsExactly("a.txt");
    assertThat(result.content()).contains("Changed but not recorded").contains("run.log: ignored by .gitignore");
  }

  @Test
  void aGitignoreTheAgentWroteEarlierInTheTurnDoesNotHideADeletion() throws Exception {
    f.write("keep.txt", "precious\n");
    f.nextTurn();
    ToolResult wrote = f.call("write_file", "path", ".gitignore", "content", "keep.txt\n");
    assertThat(wrote.isError()).isFalse();
    f.shell("rm keep.txt");
    assertThat(f.recorded()).containsExactly(".gitignore", "keep.txt");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("keep.txt")).isEqualTo("precious\n");
  }

  @Test
  void anotherTabsEditOfTheSameFileDuringTheCommandIsMergedWithIt() throws Exception {
    f.write("list.txt", "one\ntwo\nthree\nfour\nfive\n");
    f.nextTurn();
    CheckpointTree other = f.store.openTab("tab2");
    Turn otherTurn = other.begin();
    var command = startedAndWrote("sed -i s/five/FIVE/ list.txt; sleep 1", "list.txt");
    ToolResult edited = f.tools.find("edit_file").orElseThrow().run(ToolFixture.args("path", "list.txt", "old_string",
        "one", "new_string", "ONE"), new ToolContext(f.project, otherTurn, new Cancellation()));
    assertThat(edited.isError()).as(edited.content()).isFalse();
    ToolResult result = command.get();
    assertThat(result.content()).doesNotContain("Not applied");
    assertThat(f.read("list.txt")).isEqualTo("ONE\ntwo\nthree\nfour\nFIVE\n");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("list.txt")).as("undoing the command keeps the other tab's edit").isEqualTo("ONE\ntwo\nthree\nfour\nfive\n");
    otherTurn.finish(CheckpointStatus.DONE);
  }

  @Test
  void anUndoFirstRecordsWhatTheJobsWroteSoItUndoesThemToo() throws Exception {
    f.shell("(echo 1 > one.txt; sleep 0.5; echo 2 > two.txt) > /dev/null 2>&1 &");
    layerHolds("one.txt", "1\n");
    f.finish(); // #1 holds one.txt; the job goes on
    jobsEnded(); // two.txt is in the layer, not yet in the project
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.exists("one.txt")).isFalse();
    assertThat(f.exists("two.txt")).as("recorded in #1 before the undo, so undone with it").isFalse();
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(c -> c.path()).containsExactly("one.txt", "two.txt");
    assertThat(layersLeft()).isEmpty();
  }

  @Test
  void anApplyWaitsForAnotherProcesssApplyToEndWhateverItsHome() throws Exception {
    f.shell("true"); // the layers' directory exists
    // the project's, not the home's: a Waymark with another WAYMARK_HOME on this project holds the same one
    Path lock = ProjectLocks.apply(f.project).orElseThrow();
    try (var channel = FileChannel.open(lock, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      var held = channel.lock(); // as another Waymark applying its layer holds it
      var command = Running.start("command", () -> f.shell("echo x > waited.txt"));
      command.awaitIn("CommandSlot.take"); // its apply waits for apply.lock
      assertThat(command.future()).as("waiting for the other apply").isNotDone();
      held.release();
      ToolResult result = command.get(20);
      assertThat(result.content()).as(result.content()).contains("created waited.txt");
    }
    assertThat(f.read("waited.txt")).isEqualTo("x\n");
  }
}
