package dev.waymark.core.bisect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bisect on real layers and the real sandbox: a tab whose third turn breaks a file, another that
 * adds one and one that deletes one. The project's files are never touched, and no layer is left.
 */
class BisectionTest {
  @TempDir Path temp;
  private Path project;
  private ShadowStore store;
  private CheckpointTree tree;
  private Bisection bisection;

  @BeforeEach
  void fiveTurns() throws Exception {
    project = Files.createDirectories(temp.resolve("project")).toRealPath();
    Path home = Files.createDirectories(temp.resolve("home"));
    Files.writeString(project.resolve("a.txt"), "fine\n");
    Files.writeString(project.resolve("gone.txt"), "here at the start\n");
    Files.createDirectories(project.resolve("src/deep"));
    Files.writeString(project.resolve("src/deep/keep.txt"), "untouched\n");
    store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT);
    tree = store.newTab();
    turn("src/deep/one.txt", "one\n"); // #1
    turn("b.txt", "two\n"); // #2
    turn("a.txt", "BROKEN\n"); // #3
    turn("src/new/c.txt", "made at four\n"); // #4
    deleteTurn("gone.txt"); // #5
    bisection = Bisection.open(new Bisection.Setup(project, store.scratchDirectory("bisect"),
        Bwrap.required(SandboxPolicy.protecting(home, temp.resolve("config"))), store::readBlob, System.getenv(),
        Duration.ofSeconds(30)));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void findsTheFirstCheckpointWhereTheCommandFailsWithoutTouchingTheProject() throws Exception {
    Map<String, String> before = files(project);

    BisectResult result = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(),
        "! grep -q BROKEN a.txt", Bisection.Progress.NONE);

    assertThat(result.outcome()).isEqualTo(BisectResult.Outcome.FOUND);
    assertThat(result.firstBad()).hasValue(3);
    assertThat(result.path()).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(result.steps()).extracting(BisectStep::checkpoint).startsWith(5, 0);
    assertThat(files(project)).isEqualTo(before);
    assertThat(leftovers()).isEmpty();
  }

  @Test
  void aCandidateSeesItsOwnTreeWithFilesItLacksHiddenAndFilesDeletedSinceBack() {
    // c.txt appears at #4, gone.txt disappears at #5: each candidate must see exactly its own
    BisectResult made = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(),
        "test ! -e src/new/c.txt && test -e gone.txt && test \"$(cat src/deep/keep.txt)\" = untouched",
        Bisection.Progress.NONE);

    assertThat(made.firstBad()).hasValue(4);
  }

  @Test
  void theUpperHoldsOnlyWhatDiffersFromTheProjectNow() throws Exception {
    try (var layer = bisection.prepare(tree.snapshot(), 2)) {
      // at #2: a.txt was "fine", gone.txt existed, c.txt did not: three paths, not the project
      assertThat(files(layer.directory().resolve("upper"))).containsOnlyKeys("a.txt", "gone.txt", "src/new/c.txt")
          .containsEntry("a.txt", "fine\n").containsEntry("gone.txt", "here at the start\n")
          .containsEntry("src/new/c.txt", "(whiteout)");
      assertThat(layer.written()).isEqualTo(2);
      assertThat(layer.deleted()).isEqualTo(1);
    }
    assertThat(leftovers()).isEmpty();
  }

  @Test
  void aCommandThatNeverFailsHasNothingToFind() {
    BisectResult result = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(), "true",
        Bisection.Progress.NONE);

    assertThat(result.outcome()).isEqualTo(BisectResult.Outcome.NEVER_FAILS);
    assertThat(result.steps()).hasSize(1);
    assertThat(result.message()).contains("passes at #5");
  }

  @Test
  void aCommandFailingAtTheGoodEndSaysSo() {
    BisectResult result = bisection.run(tree.snapshot(), OptionalInt.of(3), OptionalInt.empty(), "! grep -q BROKEN a.txt",
        Bisection.Progress.NONE);

    assertThat(result.outcome()).isEqualTo(BisectResult.Outcome.FAILS_AT_GOOD);
    assertThat(result.message()).contains("fails at #3", "Give an earlier --good");
  }

  @Test
  void aCommandFailingAtTheTabsStartAsksForNoEarlierGoodWhereThereIsNone() {
    BisectResult result = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(), "false",
        Bisection.Progress.NONE);

    assertThat(result.outcome()).isEqualTo(BisectResult.Outcome.FAILS_AT_GOOD);
    assertThat(result.message()).isEqualTo("The command fails at #0, where the tab began, already: it fails without any of "
        + "the tab's changes, so no checkpoint made it fail.").doesNotContain("--good");
  }

  @Test
  void aGoodCheckpointAfterTheBadOneIsRefusedWithTheSwap() {
    BisectResult result = bisection.run(tree.snapshot(), OptionalInt.of(4), OptionalInt.of(1), "true",
        Bisection.Progress.NONE);

    assertThat(result.outcome()).isEqualTo(BisectResult.Outcome.REFUSED);
    assertThat(result.message()).contains("swap them: --good 1 --bad 4");
    assertThat(result.steps()).isEmpty();
  }

  @Test
  void skippedCheckpointsAreSteppedAroundAndLeaveTheAnswerOpenWhenTheyMustAsGitDoes() {
    // #2 and #3 cannot be tested; #1 is good, #4 bad: the first bad one is #2, #3 or #4
    BisectResult open = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(),
        "test -e src/new/c.txt && exit 1; test -e b.txt && exit 125; exit 0", Bisection.Progress.NONE);

    assertThat(open.outcome()).isEqualTo(BisectResult.Outcome.AMBIGUOUS);
    assertThat(open.candidates()).containsExactly(2, 3, 4);

    // only #3 skipped: #2 is good and #4 bad, so the first bad one is #3 or #4
    BisectResult two = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(),
        "test -e src/new/c.txt && exit 1; grep -q BROKEN a.txt && exit 125; exit 0", Bisection.Progress.NONE);
    assertThat(two.candidates()).containsExactly(3, 4);
  }

  @Test
  void anExitOf128OrMoreStopsTheBisect() {
    BisectResult result = bisection.run(tree.snapshot(), OptionalInt.empty(), OptionalInt.empty(),
        "grep -q BROKEN a.txt && exit 1; test -e b.txt && exit 130; exit 0", Bisection.Progress.NONE);

    assertThat(result.outcome()).isEqualTo(BisectResult.Outcome.ABORTED);
    assertThat(result.message()).contains("exit status 130");
  }

  private void turn(String path, String content) throws IOException {
    Turn turn = tree.begin();
    FileState before = turn.read(path);
    Files.createDirectories(project.resolve(path).getParent());
    Files.writeString(project.resolve(path), content);
    turn.recordFromDisk(path, before);
    turn.finish(CheckpointStatus.DONE);
  }

  private void deleteTurn(String path) throws IOException {
    Turn turn = tree.begin();
    FileState before = turn.read(path);
    Files.delete(project.resolve(path));
    turn.recordFromDisk(path, before);
    turn.finish(CheckpointStatus.DONE);
  }

  private List<Path> leftovers() throws IOException {
    try (Stream<Path> s = Files.list(store.scratchDirectory("bisect"))) {
      return s.filter(p -> p.getFileName().toString().startsWith("scratch-")).toList();
    }
  }

  /** Every file below {@code root} and its content ("(whiteout)" for a character device). */
  static Map<String, String> files(Path root) throws IOException {
    Map<String, String> all = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.toList()) {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        all.put(root.relativize(p).toString(), Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
            ? Files.readString(p, UTF_8) : "(whiteout)");
      }
    }
    return all;
  }
}
