package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RestoredTab;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.Processes;
import dev.waymark.core.testing.Running;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("process")
class RunShellToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withMaxFileSize(4_096));
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void reportsOutputErrorsAndTheExitCode() {
    ToolResult ok = f.shell("echo hello; echo oops >&2");
    assertThat(ok).isEqualTo(ToolResult.ok("hello\noops\n[exit code 0]\n"));
    ToolResult failed = f.shell("echo partial; exit 3");
    assertThat(failed).isEqualTo(ToolResult.error(ErrorKind.TOOL_FAILED, "partial\n[exit code 3]\n"));
    assertThat(f.shell("true").content()).isEqualTo("(no output)\n[exit code 0]\n");
  }

  @Test
  void commandsDoNotGetTheProviderKeysNorTheVariablesAProviderNames() throws IOException {
    assertThat(ToolSettings.DEFAULTS.withheldVariables()).contains("OPENAI_API_KEY", "ANTHROPIC_API_KEY");
    String present = System.getenv().keySet().stream()
        .filter(k -> k.matches("[A-Z][A-Z0-9_]*") && !k.equals("PATH") && !System.getenv(k).isEmpty()).sorted()
        .findFirst().orElseThrow();
    String show = "printf '[%s]\\n' \"${" + present + ":-}\"";
    assertThat(f.shell(show).content()).startsWith("[" + System.getenv(present) + "]");
    f.close();
    f = new ToolFixture(temp.resolve("withheld"), ToolSettings.DEFAULTS.withholding(List.of(present)));
    assertThat(f.shell(show).content()).startsWith("[]\n");
    assertThat(f.shell("env").content()).doesNotContain(present + "=");
  }

  @Test
  void runsInTheProjectRootWithStdinClosed() throws IOException {
    assertThat(f.shell("pwd").content()).startsWith(f.project.toRealPath() + "\n");
    assertThat(f.call("run_shell", "command", "cat", "timeout_ms", 5_000).content()).isEqualTo("(no output)\n[exit code 0]\n");
  }

  @Test
  void recordsCreatedModifiedDeletedChmodAndLinkedFilesAndUndoRestoresEveryByte() throws IOException {
    f.write("a.txt", "alpha\n");
    f.write("run.sh", "echo run\n");
    f.write("del/deep/c.txt", "gamma\n");
    f.write("keep/b.txt", "beta\n");
    Files.write(f.file("data.bin"), new byte[] {0, 1, 2, (byte) 0xFF});
    Map<String, String> before = f.tree();

    ToolResult r = f.shell("mkdir -p new/deeper && printf 'n' > new/deeper/n.txt; printf 'changed' > a.txt; "
        + "rm -r del; chmod +x run.sh; ln -s a.txt link; printf '\\000\\001' >> data.bin; cat keep/b.txt");
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(r.content()).isEqualTo("beta\n[exit code 0]\n"
        + "Files changed (recorded; undo restores them):\n"
        + "  modified a.txt\n"
        + "  modified data.bin\n"
        + "  deleted del/deep/c.txt\n"
        + "  created link link\n"
        + "  created new/deeper/n.txt\n"
        + "  made executable run.sh\n");
    assertThat(f.recorded()).containsExactly("a.txt", "data.bin", "del/deep/c.txt", "link", "new/deeper/n.txt", "run.sh");
    Map<String, String> after = f.tree();

    f.finish();
    f.tab.undo();
    assertThat(f.tree()).isEqualTo(before);
    assertThat(f.exists("new")).isFalse();
    f.tab.redo();
    assertThat(f.tree()).isEqualTo(after);
    assertThat(Files.isExecutable(f.file("run.sh"))).isTrue();
  }

  @Test
  void ignoredAndExcludedFilesAreNotRecordedButReported() throws IOException {
    f.write(".gitignore", "*.log\n");
    f.write("sub/.gitignore", "gen/\n");
    f.write("node_modules/old/index.js", "old\n");
    ToolResult r = f.shell("echo x > app.log; mkdir -p node_modules/p sub/gen && echo y > node_modules/p/i.js; "
        + "echo g > sub/gen/g.txt; echo z > kept.txt; mkdir -p .git && echo ref > .git/HEAD");
    assertThat(f.recorded()).containsExactly("kept.txt");
    assertThat(r.content()).contains("  created kept.txt\n")
        .contains("Changed but not recorded (undo will not restore them):\n")
        .contains("  app.log: ignored by .gitignore; not recorded\n")
        .contains("  node_modules/: excluded by Waymark (build output, dependencies, caches); what changed inside it is not recorded\n")
        .contains("  sub/gen/: ignored by .gitignore; what changed inside it is not recorded\n")
        .doesNotContain(".git/");
  }

  @Test
  void exclusionsFromSettingsAreLeftOutLikeIgnoredFiles(@TempDir Path other) throws IOException {
    try (ToolFixture excluding = new ToolFixture(other, ToolSettings.DEFAULTS, List.of("generated/", "*.tmp"))) {
      ToolResult r = excluding.shell("mkdir -p generated && echo g > generated/a.txt; echo t > x.tmp; echo k > kept.txt");
      assertThat(excluding.recorded()).containsExactly("kept.txt");
      assertThat(r.content()).contains("generated/").contains("x.tmp");
    }
  }

  @Test
  void filesOverTheSizeLimitAreSkippedAndReported() throws IOException {
    Files.write(f.file("big-before.bin"), new byte[10_000]);
    f.write("small.txt", "s\n");
    ToolResult r = f.shell("head -c 5000 /dev/zero > big.bin; printf more >> big-before.bin; head -c 5000 /dev/zero > small.txt");
    assertThat(f.recorded()).isEmpty();
    assertThat(r.content())
        .contains("  big-before.bin: larger than the 4096-byte limit for undoable files\n")
        .contains("  big.bin: larger than the 4096-byte limit for undoable files\n")
        .contains("  small.txt: larger than the 4096-byte limit for undoable files\n");
  }

  @Test
  void aSameSizeRewriteThatKeepsTheMtimeOfARecentFileIsStillFound() throws IOException {
    f.write("a.txt", "aaaa");
    f.shell("true"); // the cache has a.txt now, but racily: its mtime is within two seconds of the scan
    // Same size, same inode, same mtime: only the content tells.
    f.shell("cp -p a.txt ../outside/ref && printf cccc > a.txt && touch -r ../outside/ref a.txt");
    assertThat(f.recorded()).containsExactly("a.txt");
    f.finish();
    f.tab.undo();
    assertThat(f.read("a.txt")).isEqualTo("aaaa");
  }

  @Test
  void aCommandAfterAToolEditFoldsIntoOneChange() throws IOException {
    f.call("write_file", "path", "notes.txt", "content", "one\n");
    f.shell("echo two >> notes.txt");
    assertThat(f.turn.changes()).singleElement().satisfies(c -> assertThat(c.before().exists()).isFalse());
    f.finish();
    f.tab.undo();
    assertThat(f.exists("notes.txt")).isFalse();
    f.tab.redo();
    assertThat(f.read("notes.txt")).isEqualTo("one\ntwo\n");
  }

  @Test
  void aFileChangedOutsideBetweenCommandsIsNotBlamedOnTheNextCommand() throws IOException {
    f.write("a.txt", "v1\n");
    f.shell("true");
    f.write("a.txt", "v2, by the user\n");
    f.shell("echo hi > b.txt");
    assertThat(f.recorded()).containsExactly("b.txt");
  }

  @Test
  void timeoutKillsTheProcessTreeAndStillRecordsWhatWasDone() throws Exception {
    ToolResult r = f.call("run_shell", "command", "echo started > t.txt; (sleep 30; echo late > late.txt) & echo $! > child.pid; sleep 30",
        "timeout_ms", 500);
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("[timed out after 500 ms: the command and its child processes were killed]")
        .contains("created t.txt");
    long child = Long.parseLong(f.read("child.pid").trim());
    assertThat(waitUntilDead(child)).as("child process " + child).isTrue();
  }

  @Test
  void twoTabsCommandsDoNotOverlapSoEachTakesOnlyItsOwnFiles() throws Exception {
    // which process wrote a file cannot be seen: overlapping commands took each other's files, and
    // undoing one deleted the other's; the second waits for the first instead
    var otherTab = f.store.openTab("tab2");
    var otherTurn = otherTab.begin();
    var tool = f.tools.find("run_shell").orElseThrow();
    CompletableFuture<ToolResult> first = CompletableFuture.supplyAsync(() -> f.shell(
        "for i in 1 2 3 4 5 6; do echo a$i > a$i.txt; sleep 0.25; done"));
    Eventually.until("the first command wrote a1.txt: it holds the slot", () -> f.exists("a1.txt"));
    ToolResult second = tool.run(ToolFixture.args("command", "for i in 1 2 3; do echo b$i > b$i.txt; sleep 0.1; done"),
        new ToolContext(f.project, otherTurn, new Cancellation()));
    first.get(20, TimeUnit.SECONDS);

    assertThat(f.recorded()).containsExactly("a1.txt", "a2.txt", "a3.txt", "a4.txt", "a5.txt", "a6.txt");
    assertThat(otherTurn.changes()).extracting(FileChange::path)
        .containsExactlyInAnyOrder("b1.txt", "b2.txt", "b3.txt");
    assertThat(second.content()).contains("waited").contains("for another shell command on this project");
  }

  @Test
  void aCommandWaitingForAnotherCanBeCancelled() throws Exception {
    var otherTurn = f.store.openTab("tab2").begin();
    try (var held = otherTurn.commandSlot().take(1_000).orElseThrow()) {
      Running<ToolResult> waiting = Running.start("waiting", () -> f.shell("echo never > n.txt"))
          .awaitIn("CommandSlot.take");
      f.cancellation.cancel();
      ToolResult r = waiting.get(10);
      assertThat(r.isError()).isTrue();
      assertThat(r.content()).contains("Cancelled while waiting for another shell command");
    }
    assertThat(f.exists("n.txt")).isFalse();
  }

  @Test
  void cancellationKillsALongSleep() throws Exception {
    CompletableFuture<ToolResult> result = CompletableFuture.supplyAsync(() -> f.shell("sleep 30"));
    Eventually.until("the command's sleep runs", () -> ProcessHandle.current().descendants()
        .anyMatch(p -> Processes.is(p, "sleep 30")));
    f.cancellation.cancel();
    ToolResult r = result.get(10, TimeUnit.SECONDS); // a hang guard, shorter than the sleep the cancel cuts short
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("[cancelled: the command and its child processes were killed]");
    assertThat(f.shell("echo again").content()).isEqualTo("Cancelled before the command started.");
  }

  @Test
  void longOutputKeepsItsStartAndEnd() throws IOException {
    f.close();
    f = new ToolFixture(temp.resolve("capped"), ToolSettings.DEFAULTS.withShellMaxOutputBytes(40));
    ToolResult r = f.shell("seq 1 1000");
    assertThat(r.content()).startsWith("1\n2\n3\n").contains("bytes of output cut").contains("999\n1000\n[exit code 0]");
    int cut = 3893 - 40;
    assertThat(r.content()).contains("[... " + cut + " bytes of output cut ...]");
  }

  @Test
  void badArguments() {
    assertThat(f.call("run_shell").content()).isEqualTo("Missing required parameter \"command\".");
    assertThat(f.call("run_shell", "command", 7).content()).contains("\"command\" must be a string");
    assertThat(f.call("run_shell", "command", "  ").content()).isEqualTo("The command is empty.");
    assertThat(f.call("run_shell", "command", "true", "timeout_ms", -1).content()).contains("\"timeout_ms\" must be between 1");
    assertThat(f.call("run_shell", "command", "true", "timeout_ms", 99_999_999).content())
        .startsWith("[timeout_ms capped at 600000]\n");
  }

  @Test
  void describeShowsTheCommand() {
    Tool shell = f.tools.find("run_shell").orElseThrow();
    assertThat(shell.describe(ToolFixture.args("command", "mvn -q test"))).isEqualTo("mvn -q test");
    assertThat(shell.kind()).isEqualTo(ToolKind.SHELL);
  }

  /**
   * Whether the process ends within two seconds. A zombie counts as dead: it was killed, and only
   * waits for its new parent (init, or whatever reaps orphans here) to collect it.
   */
  private static boolean waitUntilDead(long pid) {
    try {
      Eventually.until("process " + pid + " ended", Duration.ofSeconds(2),
          () -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) || Processes.zombie(pid));
      return true;
    } catch (AssertionError stillAlive) {
      return false;
    }
  }

  /** Returns once the tab's background job has written {@code content} to {@code path} and no job is left running. */
  private void jobWroteAndEnded(String path, String content) {
    Eventually.until("the job wrote " + path + " and ended",
        () -> f.exists(path) && f.read(path).equals(content) && f.store.backgroundProcesses() == 0);
  }

  @Test
  void whatABackgroundJobChangesAfterTheCommandReturnedIsRecordedWhenTheTurnEnds() throws Exception {
    ToolResult r = f.shell("(sleep 1; echo late > late.txt) > /dev/null 2>&1 &");
    assertThat(r.content()).contains("background process(es) still running");
    assertThat(f.recorded()).isEmpty();
    jobWroteAndEnded("late.txt", "late\n");
    assertThat(f.exists("late.txt")).isTrue();
    f.finish();
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("late.txt");
    f.tab.undo();
    assertThat(f.exists("late.txt")).isFalse();
  }

  @Test
  void aTurnThatEndsWhileAnotherTabsCommandRunsDoesNotTakeThatCommandsFilesForItsJobs() throws Exception {
    ToolResult r = f.shell("(sleep 1; echo late > late.txt) > /dev/null 2>&1 &");
    assertThat(r.content()).contains("background process(es) still running");
    var otherTurn = f.store.openTab("tab2").begin();
    try (var running = otherTurn.commandSlot().take(1_000).orElseThrow()) { // tab2's command runs
      Files.writeString(f.file("theirs.txt"), "written by tab2's command\n");
      f.nextTurn(); // tab1's turn ends meanwhile
    }
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(FileChange::path).doesNotContain("theirs.txt");
    jobWroteAndEnded("late.txt", "late\n");
    f.shell("true"); // the tab's next command records what its job did meanwhile
    assertThat(f.recorded()).contains("late.txt");
  }

  @Test
  void anUndoWhileAnotherTabsCommandRunsNeitherTakesNorDeletesThatCommandsFiles() throws Exception {
    f.shell("echo mine > mine.txt; (sleep 30) > /dev/null 2>&1 &");
    f.finish();
    var otherTurn = f.store.openTab("tab2").begin();
    try (var running = otherTurn.commandSlot().take(1_000).orElseThrow()) { // tab2's command runs
      Files.writeString(f.file("theirs.txt"), "written by tab2's command\n");
      assertThat(f.tab.undo().applied()).isTrue();
    }
    assertThat(f.exists("mine.txt")).isFalse();
    assertThat(f.read("theirs.txt")).isEqualTo("written by tab2's command\n");
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("mine.txt");
  }

  @Test
  void aBackgroundJobsChangesAreRecordedAtTheNextCommandOfTheTab() throws Exception {
    f.shell("(sleep 1; echo late > late.txt) > /dev/null 2>&1 &");
    jobWroteAndEnded("late.txt", "late\n");
    f.shell("true");
    assertThat(f.recorded()).containsExactly("late.txt");
  }

  @Test
  void anUndoWhileABackgroundJobRunsIsNeverTakenForTheJobsChangesAndTheJobsLaterWritesAreUndoneWithItsCommand()
      throws Exception {
    f.write("kept.txt", "original\n");
    f.nextTurn(); // #1 changes nothing: kept.txt is there before #2
    f.shell("echo changed > kept.txt; (sleep 1; echo late > late.txt; sleep 1; echo later > later.txt) "
        + "> /dev/null 2>&1 &");
    f.finish(); // #2: kept.txt changed, the job still running
    Eventually.until("the job wrote late.txt", () -> f.exists("late.txt") && f.read("late.txt").equals("late\n"));

    assertThat(f.tab.undo().applied()).isTrue(); // back to #1, while the job runs
    assertThat(f.read("kept.txt")).isEqualTo("original\n");
    assertThat(f.exists("late.txt")).as("written by #2's job before the undo: undone with #2").isFalse();
    jobWroteAndEnded("later.txt", "later\n");

    f.turn = f.tab.begin(); // #3, from #1
    f.shell("echo three > three.txt");
    f.finish();
    assertThat(f.tab.checkpoints().get(3).changes()).extracting(FileChange::path)
        .as("the undo's own writes are not #3's; the job's write after the undo is")
        .containsExactlyInAnyOrder("three.txt", "later.txt");

    assertThat(f.tab.undo().applied()).isTrue(); // #3 undone: back to #1 exactly
    assertThat(f.read("kept.txt")).isEqualTo("original\n");
    assertThat(f.exists("three.txt")).isFalse();
    assertThat(f.exists("later.txt")).isFalse();
    assertThat(f.exists("late.txt")).isFalse();
  }

  @Test
  void closingTheTabStopsWhatItsCommandsLeftRunningAndRecordsWhatTheyChanged() throws Exception {
    f.shell("(echo started > started.txt; sleep 29.71; echo never > never.txt) > /dev/null 2>&1 &");
    f.finish();
    Eventually.until("the job wrote started.txt", () -> f.exists("started.txt"));
    List<ProcessHandle> job = Processes.awaitStarted("sleep 29.71", "sleep 29.71");
    assertThat(job).isNotEmpty();

    f.tab.release(); // the tab closes

    assertThat(job).noneMatch(ProcessHandle::isAlive);
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("started.txt");
  }

  @Test
  void closingTheStoreStopsWhatCommandsLeftRunning() throws Exception {
    f.shell("(sleep 29.72; echo never > never.txt) > /dev/null 2>&1 &");
    f.finish();
    List<ProcessHandle> job = Processes.awaitStarted("sleep 29.72", "sleep 29.72");
    assertThat(job).isNotEmpty();
    assertThat(f.store.backgroundProcesses()).as("what quitting would stop").isEqualTo(job.size());

    f.store.close(); // Waymark exits

    assertThat(job).noneMatch(ProcessHandle::isAlive);
    assertThat(f.store.backgroundProcesses()).isZero();
  }

  @Test
  void aJobAnEarlierCommandLeftIsStillFollowedAfterALaterCommandLeavesOneToo() throws Exception {
    f.shell("(sleep 29.81; echo never > never.txt) > /dev/null 2>&1 &");
    f.shell("(sleep 0.2) > /dev/null 2>&1 &");
    f.finish();
    List<ProcessHandle> first = ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().orElse("").contains("sleep 29.81")).toList();
    assertThat(first).isNotEmpty();

    f.tab.release();

    assertThat(first).noneMatch(ProcessHandle::isAlive);
  }

  @Test
  void aJobThatClearedItsEnvironmentAndOutlivedAKilledWaymarkIsStoppedByTheSessionItsCommandLed() throws Exception {
    Assumptions.assumeTrue(CommandMark.findable(), "processes are found through /proc");
    f.shell("(env -i /bin/sh -c 'sleep 29.67') > /dev/null 2>&1 &");
    f.finish();
    ProcessHandle job = ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().orElse("").contains("sleep 29.67")).findFirst().orElseThrow();
    TreeSnapshot saved = f.tab.snapshot();
    Path jobs;
    try (var files = Files.walk(temp.resolve("home"))) {
      jobs = files.filter(p -> p.getFileName().toString().equals("tab1.jobs")).findFirst().orElseThrow();
    }
    CommandMark kept = CommandMark.parse(Files.readString(jobs)).orElseThrow();
    assertThat(kept.session()).as("the session the command led is kept with its mark").isPositive();
    assertThat(kept.processes()).as("the job is found by it, without the variable").contains(job);
    f.store.close();
    assertThat(job.isAlive()).isFalse();

    // a killed Waymark stops nothing: a job of a session the command led goes on, without the mark
    Process survivor = new ProcessBuilder("setsid", "env", "-i", "sleep", "29.68").start();
    Files.writeString(jobs, new CommandMark(kept.value()).leading(survivor.toHandle()).encoded() + "\n");
    try (ShadowStore reopened = ShadowStore.open(f.project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(survivor.waitFor(5, TimeUnit.SECONDS)).as("the job was stopped").isTrue();
      assertThat(restored.shellRecovered()).anySatisfy(note -> assertThat(note).contains("still running after Waymark stopped"));
    } finally {
      survivor.destroyForcibly();
    }
  }

  @Test
  void aJobLeftRunningWhenWaymarkIsKilledIsStoppedWhenItsTabIsOpenedAgain() throws Exception {
    Assumptions.assumeTrue(CommandMark.findable(), "processes are found through /proc");
    f.shell("echo started > started.txt; (sleep 29.63; echo never > never.txt) > /dev/null 2>&1 &");
    f.finish();
    TreeSnapshot saved = f.tab.snapshot();
    Path jobs;
    try (var files = Files.walk(temp.resolve("home"))) {
      jobs = files.filter(p -> p.getFileName().toString().equals("tab1.jobs")).findFirst().orElseThrow();
    }
    String marks = Files.readString(jobs);
    assertThat(marks).isNotBlank();
    f.store.close();
    assertThat(jobs).as("a Waymark that exits stops its jobs and leaves nothing to stop").doesNotExist();

    // a killed Waymark stops nothing: its job goes on, and the note of its mark stays
    Files.writeString(jobs, marks);
    ProcessBuilder survivor = new ProcessBuilder("sleep", "29.64");
    survivor.environment().put(CommandMark.VARIABLE, CommandMark.parse(marks).orElseThrow().value());
    Process job = survivor.start();
    try (ShadowStore reopened = ShadowStore.open(f.project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      RestoredTab restored = reopened.restoreTab(saved);

      assertThat(job.waitFor(5, TimeUnit.SECONDS)).as("the job was stopped").isTrue();
      assertThat(restored.shellRecovered()).anySatisfy(note -> assertThat(note).contains("still running after Waymark stopped"));
      assertThat(jobs).doesNotExist();
    } finally {
      job.destroyForcibly();
    }
  }
}
