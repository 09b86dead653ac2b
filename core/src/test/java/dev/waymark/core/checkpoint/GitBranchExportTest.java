package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A path of checkpoints written as commits of a branch of the user's repository, read back with the real git. */
@Tag("process") // runs the real git
class GitBranchExportTest {
  @TempDir Path temp;
  StoreFixture fx;
  CheckpointTree tab;
  static final IntFunction<String> PROMPTS = n -> Map.of(1, "add a", 2, "say hello\n\nin b too", 3, "", 4, "drop old")
      .getOrDefault(n, "");

  @BeforeEach
  void open() throws IOException {
    GitCli.requireGit();
    fx = new StoreFixture(temp);
    GitCli.ok(fx.project, "init", "-q", "-b", "main");
    GitCli.ok(fx.project, "config", "user.name", "Ada");
    GitCli.ok(fx.project, "config", "user.email", "ada@example.com");
    fx.writeExternally("old.txt", "old\n");
    fx.writeExternally("b.txt", "b\n");
    GitCli.ok(fx.project, "add", ".");
    GitCli.ok(fx.project, "commit", "-q", "-m", "start");
    tab = fx.store.openTab("tab1");
    fx.turn(tab, "a.txt", "a\n"); // #1
    fx.turn(tab, "b.txt", "hello\n"); // #2
    tab.begin().finish(CheckpointStatus.DONE); // #3 changed nothing
    Turn turn = tab.begin(); // #4
    fx.delete(turn, "old.txt");
    turn.finish(CheckpointStatus.DONE);
  }

  @AfterEach
  void close() {
    fx.close();
  }

  private GitBranchExport.Result export(int from, int to, String branch, boolean squash, boolean force) {
    var snapshot = tab.snapshot();
    return tab.exporter().export(new CheckpointAt(snapshot, from), new CheckpointAt(snapshot, to), PROMPTS, branch, squash,
        force);
  }

  /** HEAD, the index file's bytes and the status, which an export must leave as they are. */
  private String untouched() throws IOException {
    return GitCli.ok(fx.project, "rev-parse", "HEAD").text() + GitCli.ok(fx.project, "symbolic-ref", "HEAD").text()
        + GitCli.ok(fx.project, "status", "--porcelain").text()
        + HexFormat.of().formatHex(Files.readAllBytes(fx.project.resolve(".git/index")));
  }

  @Test
  void eachCheckpointThatChangedFilesBecomesACommitWithItsPrompt() throws IOException {
    String before = untouched();
    GitBranchExport.Result result = export(0, 4, "waymark/try", false, false);

    assertThat(result.commits()).hasSize(3);
    assertThat(result.skipped()).containsExactly(3);
    assertThat(GitCli.ok(fx.project, "log", "--format=%s|%an", "waymark/try").lines())
        .containsExactly("drop old|Ada", "say hello|Ada", "add a|Ada", "start|Test User");
    assertThat(GitCli.ok(fx.project, "log", "-1", "--format=%B", "waymark/try~1").text()).contains("in b too");
    assertThat(GitCli.ok(fx.project, "show", "waymark/try~2:a.txt").text()).isEqualTo("a\n");
    assertThat(GitCli.ok(fx.project, "show", "waymark/try~2:b.txt").text()).isEqualTo("b\n");
    assertThat(GitCli.ok(fx.project, "show", "waymark/try:b.txt").text()).isEqualTo("hello\n");
    assertThat(GitCli.ok(fx.project, "ls-tree", "--name-only", "waymark/try").lines()).containsExactly("a.txt", "b.txt");
    assertThat(GitCli.ok(fx.project, "merge-base", "waymark/try", "main").text())
        .isEqualTo(GitCli.ok(fx.project, "rev-parse", "main").text());
    assertThat(untouched()).isEqualTo(before);
    GitCli.ok(fx.project, "fsck", "--strict");
  }

  @Test
  void squashMakesOneCommitAndAnExistingBranchNeedsForce() throws IOException {
    String before = untouched();
    export(1, 4, "w", true, false);
    assertThat(GitCli.ok(fx.project, "log", "--format=%s", "w").lines())
        .as("#1 is left out as git's A..B leaves A out, but for the state it holds").containsExactly(
            "Waymark: the project as #1 holds it, then checkpoints #2..#4", "start");
    assertThat(GitCli.ok(fx.project, "diff", "--name-status", "main", "w").lines())
        .containsExactly("A\ta.txt", "M\tb.txt", "D\told.txt"); // a.txt stood at #1: a first state, squashed in
    assertThatThrownBy(() -> export(0, 1, "w", false, false)).hasMessageContaining("The branch w exists already");
    GitBranchExport.Result forced = export(0, 1, "w", false, true);
    assertThat(forced.replaced()).isPresent();
    assertThat(GitCli.ok(fx.project, "log", "--format=%s", "w").lines()).containsExactly("add a", "start");
    assertThatThrownBy(() -> export(0, 1, "main", false, true)).hasMessageContaining("is checked out");
    assertThatThrownBy(() -> export(0, 1, "bad..name", false, false)).hasMessageContaining("Not a valid branch name");
    assertThat(untouched()).isEqualTo(before);
  }

  @Test
  void forceRefusesABranchAnotherWorkTreeHasCheckedOutOrIsRebasingAsGitDoes() throws IOException {
    Path other = temp.resolve("other");
    GitCli.ok(fx.project, "worktree", "add", "-q", "-b", "side", other.toString());
    String side = GitCli.ok(fx.project, "rev-parse", "side").text();

    assertThatThrownBy(() -> export(0, 1, "side", false, true))
        .hasMessageContaining("The branch side is checked out").hasMessageContaining(other.toString());
    assertThat(GitCli.ok(fx.project, "rev-parse", "side").text()).isEqualTo(side);
    assertThat(GitCli.ok(other, "status", "--porcelain").text()).isEmpty();

    Files.writeString(other.resolve("c.txt"), "c\n");
    GitCli.ok(other, "add", "c.txt");
    GitCli.ok(other, "commit", "-qm", "c");
    GitCli.ok(other, "-c", "sequence.editor=sed -i 1s/^pick/edit/", "rebase", "-q", "-i", "HEAD~1");
    String rebasing = GitCli.ok(fx.project, "rev-parse", "side").text();
    assertThatThrownBy(() -> export(0, 1, "side", false, true)).hasMessageContaining("being rebased");
    assertThat(GitCli.ok(fx.project, "rev-parse", "side").text()).isEqualTo(rebasing);
  }

  @Test
  void aPathMustGoForwardOnOneBranch() {
    assertThatThrownBy(() -> export(4, 1, "x", false, false)).hasMessageContaining("#4 is not on the way to #1");
    assertThatThrownBy(() -> export(3, 3, "x", false, false)).hasMessageContaining("Nothing to export");
  }

  @Test
  void aProjectOutsideAnyRepositoryIsToldSo(@TempDir Path other) throws IOException {
    try (StoreFixture plain = new StoreFixture(other)) {
      CheckpointTree t = plain.store.openTab("t");
      plain.turn(t, "a.txt", "a\n");
      var s = t.snapshot();
      assertThatThrownBy(() -> t.exporter().export(new CheckpointAt(s, 0), new CheckpointAt(s, 1), PROMPTS, "x", false,
          false)).hasMessageContaining("is not in a git repository").hasMessageContaining("git init");
    }
  }

  @Test
  void filesGitIgnoresAreLeftOutAndNamedUnlessHeadTracksThem() throws IOException {
    fx.writeExternally(".gitignore", "build/\n*.log\n.env\n!keep.log\n");
    fx.writeExternally("sub/.gitignore", "local.txt\n");
    fx.writeExternally("tracked.log", "old\n");
    GitCli.ok(fx.project, "add", ".");
    GitCli.ok(fx.project, "add", "-f", "tracked.log");
    GitCli.ok(fx.project, "commit", "-q", "-m", "ignore rules");
    fx.turn(tab, ".env", "SECRET=1\n"); // #5
    fx.turn(tab, "build/out.bin", "x"); // #6
    fx.turn(tab, "sub/local.txt", "mine\n"); // #7
    fx.turn(tab, "keep.log", "kept\n"); // #8
    fx.turn(tab, "tracked.log", "new\n"); // #9
    fx.turn(tab, "sub/code.txt", "code\n"); // #10

    GitBranchExport.Result result = export(4, 10, "waymark/ignoring", false, false);

    assertThat(result.ignored()).containsExactly(".env", "build/out.bin", "sub/local.txt");
    assertThat(GitCli.ok(fx.project, "ls-tree", "-r", "--name-only", "waymark/ignoring").lines())
        .contains("keep.log", "tracked.log", "sub/code.txt").doesNotContain(".env", "build/out.bin", "sub/local.txt");
    assertThat(GitCli.ok(fx.project, "show", "waymark/ignoring:tracked.log").text()).isEqualTo("new\n");
    assertThat(result.skipped()).as("a checkpoint whose only file is ignored makes no commit").containsExactly(5, 6, 7);
  }
}
