package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.layer.View;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An isolated tab (#41): its tools and commands work on a view of the project of its own, its
 * checkpoints record the view, and the project changes only when it lands.
 */
class IsolatedTabTest {
  @TempDir Path temp;
  ToolSettings settings;
  ToolFixture f;
  Map<String, String> projectBefore;

  @BeforeEach
  void open() throws IOException {
    settings = ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\nfour\n");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/util.txt"), "util\n");
    f = new ToolFixture(temp, settings, List.of(), true);
    projectBefore = f.tree();
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void theToolsReadAndWriteTheViewAndTheProjectStaysAsItWas() throws IOException {
    assertThat(f.tab.viewDirectory()).isPresent();
    assertThat(f.call("write_file", "path", "new.txt", "content", "new\n").isError()).isFalse();
    assertThat(f.call("edit_file", "path", "a.txt", "old_string", "two", "new_string", "TWO").isError()).isFalse();

    assertThat(f.tree()).isEqualTo(projectBefore);
    assertThat(f.call("read_file", "path", "a.txt").content()).contains("TWO");
    assertThat(f.call("list_files").content()).contains("new.txt", "a.txt", "src/util.txt");
    assertThat(f.call("grep", "pattern", "TWO|new").content()).contains("a.txt", "new.txt");
    assertThat(f.recorded()).containsExactly("a.txt", "new.txt");
    assertThat(f.tab.viewDiffers()).isEqualTo(2);
    // files the tab has not touched show the project as it is now
    f.write("src/util.txt", "the user's\n");
    assertThat(f.call("read_file", "path", "src/util.txt").content()).contains("the user's");
  }

  @Test
  void undoAndRedoWorkOnTheView() throws IOException {
    f.call("write_file", "path", "new.txt", "content", "new\n");
    f.call("edit_file", "path", "a.txt", "old_string", "two", "new_string", "TWO");
    f.nextTurn();
    f.call("write_file", "path", "a.txt", "content", "third\n");
    f.finish();

    var undone = f.tab.undo();
    assertThat(undone.applied()).as(undone.toString()).isTrue();
    assertThat(viewed("a.txt")).hasValue("one\nTWO\nthree\nfour\n");
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(viewed("a.txt")).hasValue("one\ntwo\nthree\nfour\n");
    assertThat(viewed("new.txt")).isEmpty();
    assertThat(f.tab.redo().applied()).isTrue();
    assertThat(viewed("new.txt")).hasValue("new\n");
    assertThat(f.tree()).isEqualTo(projectBefore);
  }

  @Test
  void aCommandRunsInTheViewAndIsRecordedThere() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "from the tool\n");
    ToolResult result = f.shell("cat a.txt; echo made > made.txt; rm src/util.txt");
    assertThat(result.isError()).as(result.content()).isFalse();
    assertThat(result.content()).contains("from the tool");
    assertThat(f.tree()).isEqualTo(projectBefore);
    assertThat(f.recorded()).containsExactly("a.txt", "made.txt", "src/util.txt");
    assertThat(f.call("read_file", "path", "made.txt").content()).contains("made");
    assertThat(f.call("read_file", "path", "src/util.txt").isError()).isTrue();
    f.finish();

    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(viewed("src/util.txt")).hasValue("util\n");
    assertThat(viewed("made.txt")).isEmpty();
    assertThat(viewed("a.txt")).hasValue("one\ntwo\nthree\nfour\n");
    assertThat(f.tab.viewDiffers()).isZero();
  }

  @Test
  void whatACommandLeavesRunningEndsWithItSoNothingWritesInTheViewAfterItsCheckpoint() throws IOException {
    ToolResult result = f.shell("echo now > now.txt; (sleep 300.93; echo late > late.txt) > /dev/null 2>&1 &");
    assertThat(result.isError()).as(result.content()).isFalse();
    assertThat(result.content()).contains("stopped, as an isolated tab's command ends whole");
    assertThat(ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse("")))
        .noneMatch(line -> line.contains("sleep 300.93"));
    assertThat(f.recorded()).containsExactly("now.txt");
    f.finish();

    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(viewed("now.txt")).isEmpty();
    assertThat(f.tab.viewDiffers()).isZero();
  }

  @Test
  void aPlanModeCommandReadsTheViewAndChangesNothing() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "from the tool\n");
    f.shell("rm src/util.txt");
    ToolResult result = Tools.standard(settings).find("run_shell").orElseThrow().run(ToolFixture.args("command",
        "cat a.txt; ls src; echo x > x.txt"), new ToolContext(f.project, f.turn, new Cancellation(),
            true, text -> { }));
    assertThat(result.content()).contains("from the tool").doesNotContain("util.txt").contains("Read-only file system");
    assertThat(f.tree()).isEqualTo(projectBefore);
    assertThat(viewed("x.txt")).isEmpty();
    assertThat(f.recorded()).containsExactly("a.txt", "src/util.txt");
  }

  @Test
  void theApprovalsDiffIsAgainstTheViewsFile() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "the view's\n");
    ToolContext context = new ToolContext(f.project, f.turn, new Cancellation());
    assertThat(f.tools.find("edit_file").orElseThrow().preview(ToolFixture.args("path", "a.txt", "old_string", "view's",
        "new_string", "edited"), context)).contains("-the view's", "+the edited").doesNotContain("-one");
    assertThat(f.tools.find("write_file").orElseThrow().preview(ToolFixture.args("path", "a.txt", "content", "whole\n"),
        context)).contains("-the view's", "+whole").doesNotContain("-one");
  }

  @Test
  void aCommandStoresOnlyWhatChangedInTheViewSinceTheLastCommand() throws Exception {
    assertThat(f.shell("for i in $(seq 1 40); do echo $i > f$i.txt; done").isError()).isFalse();
    // an entry seen within a tick of the file system's clock after it changed is read once more: let that pass
    long made = Files.readAttributes(f.tab.viewDirectory().orElseThrow().resolve("upper/f40.txt"), "unix:ctime")
        .get("ctime") instanceof FileTime t ? t.toMillis() : 0;
    Eventually.until("the files are older than a clock tick", () -> System.currentTimeMillis() > made + 200);
    assertThat(f.shell("true").isError()).isFalse();
    f.call("write_file", "path", "f7.txt", "content", "from the tool\n");

    var capture = f.turn.shellCapture(settings.sandbox().bwrap()).capture();
    var snapshot = f.turn.snapshotWorkTree(capture, 1 << 20, CommandMark.random());
    assertThat(snapshot.fileCount()).isEqualTo(40);
    assertThat(snapshot.storedCount()).as("only what the tool changed since the last command is read").isEqualTo(1);
  }

  @Test
  void aCommandOutsideTheSandboxIsRefused() throws IOException {
    ToolResult result = f.call("run_shell", "command", "echo x > x.txt", "sandbox", false);
    assertThat(result.isError()).isTrue();
    assertThat(result.content()).contains("isolated");
    assertThat(f.exists("x.txt")).isFalse();
  }

  @Test
  void aLandAppliesTheViewAsOneUndoableCheckpoint() throws IOException {
    f.call("write_file", "path", "new.txt", "content", "new\n");
    f.call("edit_file", "path", "a.txt", "old_string", "four", "new_string", "FOUR");
    f.finish();
    f.write("a.txt", "ONE\ntwo\nthree\nfour\n"); // the user's edit meanwhile, merged

    var landed = f.tab.land();
    assertThat(landed.notLanded()).isEmpty();
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nFOUR\n");
    assertThat(f.read("new.txt")).isEqualTo("new\n");
    assertThat(f.tab.viewDirectory()).as("the tab goes on as a normal tab").isEmpty();
    int land = f.tab.live();
    assertThat(f.tab.checkpoint(land).changes()).extracting(FileChange::path).containsExactly("a.txt", "new.txt");

    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nfour\n");
    assertThat(f.exists("new.txt")).isFalse();
  }

  @Test
  void aLandCanKeepTheTabIsolatedWithAnEmptyViewOverTheLandedProject() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "landed\n");
    f.finish();

    var landed = f.tab.land(true);
    assertThat(landed.landed()).containsExactly("a.txt");
    assertThat(f.read("a.txt")).isEqualTo("landed\n");
    assertThat(f.tab.viewDirectory()).as("the tab stays isolated").isPresent();
    assertThat(f.tab.viewDiffers()).isZero();
    assertThat(viewed("a.txt")).as("the empty view shows the landed project").hasValue("landed\n");

    f.turn = f.tab.begin();
    f.call("write_file", "path", "a.txt", "content", "after the land\n");
    f.finish();
    assertThat(f.read("a.txt")).as("the project waits for the next land").isEqualTo("landed\n");
    assertThat(f.tab.viewDiffers()).isEqualTo(1);

    // undo of the later turn acts on the view; undo of the land takes it back out of the project
    // and puts the view back as the land found it
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(viewed("a.txt")).hasValue("landed\n");
    assertThat(f.tab.viewDiffers()).isZero();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("a.txt")).isEqualTo("one\ntwo\nthree\nfour\n");
    assertThat(viewed("a.txt")).hasValue("landed\n");
    f.tab.land(false);
    assertThat(f.read("a.txt")).as("landing it again").isEqualTo("landed\n");
    assertThat(f.tab.viewDirectory()).isEmpty();
  }

  @Test
  void aViewHoldingOnlyDirectoryChangesLandsAndDiscards() throws IOException {
    Files.createDirectories(f.project.resolve("empty"));
    ToolResult made = f.shell("mkdir made && rmdir empty");
    assertThat(made.isError()).as(made.content()).isFalse();
    f.finish();
    assertThat(f.tab.viewHoldsChanges()).isTrue();
    f.tab.land();
    assertThat(f.project.resolve("made")).isDirectory();
    assertThat(f.project.resolve("empty")).doesNotExist();

    CheckpointTree other = f.store.newIsolatedTab(settings.sandbox().bwrap());
    var turn = other.begin();
    assertThat(Tools.standard(settings).find("run_shell").orElseThrow().run(ToolFixture.args("command", "mkdir more"),
        new ToolContext(f.project, turn, new Cancellation())).isError()).isFalse();
    turn.finish(CheckpointStatus.DONE);
    other.discard();
    assertThat(other.viewHoldsChanges()).isFalse();
    assertThat(f.project.resolve("more")).doesNotExist();
  }

  @Test
  void aLandThatClashesKeepsTheUsersFileAndRescuesTheTabs() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "the tab's\n");
    f.finish();
    f.write("a.txt", "the user's\n");
    var landed = f.tab.land();
    assertThat(landed.notLanded()).anySatisfy(line -> assertThat(line).startsWith("a.txt"));
    assertThat(landed.rescueTag()).hasValueSatisfying(tag -> assertThat(tag).contains("rescued"));
    assertThat(f.read("a.txt")).isEqualTo("the user's\n");
    assertThat(f.tab.viewDirectory()).as("nothing of it landed: the tab stays isolated").isPresent();
  }

  @Test
  void aDiscardEmptiesTheViewAndUndoBringsItBack() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "the tab's\n");
    f.finish();
    assertThat(f.tab.discard()).containsExactly("a.txt");
    assertThat(f.tab.viewDiffers()).isZero();
    try (var left = Files.list(f.store.shadowDirectory().resolveSibling("discarded"))) {
      assertThat(left).as("what it held is kept by the checkpoint's tag, not by a copy retention never drops").isEmpty();
    }
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.tab.viewDiffers()).isEqualTo(1);
    assertThat(f.tree()).isEqualTo(projectBefore);
    assertThatThrownBy(() -> {
      f.tab.discard();
      f.tab.discard();
    }).isInstanceOf(CheckpointException.class).hasMessageContaining("nothing to discard");
  }

  @Test
  void theViewSurvivesAKillAndIsThereWhenTheSessionIsOpenedAgain() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "the tab's\n");
    f.finish();
    TreeSnapshot saved = f.tab.snapshot();
    f.store.close(); // as a kill leaves it: nothing is landed or dropped
    try (ShadowStore reopened = ShadowStore.open(f.project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      CheckpointTree back = reopened.restoreTab(saved).tree();
      assertThat(back.viewDirectory()).isPresent();
      assertThat(back.viewDiffers()).isEqualTo(1);
      assertThat(f.tree()).isEqualTo(projectBefore);
      back.land();
      assertThat(f.read("a.txt")).isEqualTo("the tab's\n");
    }
  }

  @Test
  void twoIsolatedTabsRunTheSameCommandOnTheirOwnEditsAtOnce() throws Exception {
    CheckpointTree other = f.store.newIsolatedTab(settings.sandbox().bwrap());
    var otherTurn = other.begin();
    f.call("write_file", "path", "a.txt", "content", "first tab\n");
    Tools.standard(settings).find("write_file").orElseThrow().run(ToolFixture.args("path", "a.txt", "content",
        "second tab\n"), new ToolContext(f.project, otherTurn, new Cancellation()));
    var first = CompletableFuture.supplyAsync(() -> f.shell("cat a.txt"));
    var second = CompletableFuture.supplyAsync(() -> Tools.standard(settings).find("run_shell")
        .orElseThrow().run(ToolFixture.args("command", "cat a.txt"),
            new ToolContext(f.project, otherTurn, new Cancellation())));
    assertThat(first.get().content()).contains("first tab").doesNotContain("second");
    assertThat(second.get().content()).contains("second tab").doesNotContain("first");
    assertThat(f.read("a.txt")).isEqualTo("one\ntwo\nthree\nfour\n");
    otherTurn.finish(CheckpointStatus.DONE);
  }

  /** What the tab's view shows at {@code path} (read directly: after its turn ended, no tool call has a turn to read in). */
  private Optional<String> viewed(String path) throws IOException {
    Optional<Path> at = View.read(f.tab.viewDirectory().orElseThrow()).orElseThrow().locate(path);
    return at.isEmpty() ? Optional.empty() : Optional.of(Files.readString(at.get()));
  }

  @Test
  void anIsolatedTabIsRefusedWhereLayersAreNot() {
    assertThatThrownBy(() -> f.store.newIsolatedTab(Optional.empty())).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("Isolated tabs need copy-on-write layers").hasMessageContaining("not sandboxed");
  }
}
