package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.wording.Wording;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Diffs of any two checkpoints, across branches and tabs, and taking a file or a hunk of one side. */
class CheckpointComparisonTest {
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

  private List<CheckpointComparison.FileText> diff(CheckpointTree a, int from, CheckpointTree b, int to, String... paths) {
    CheckpointComparison comparison = tab.comparison();
    return CheckpointComparison.deltas(new CheckpointAt(a.snapshot(), from), new CheckpointAt(b.snapshot(), to),
        Set.of(paths)).stream().map(comparison::text).toList();
  }

  @Test
  void twoBranchesOfOneTabDifferByWhatEachDid() throws IOException {
    fx.writeExternally("f.txt", "1\n2\n3\n");
    fx.turn(tab, "f.txt", "1\nTWO\n3\n"); // #1
    fx.turn(tab, "new.txt", "made on the first branch\n"); // #2
    tab.goTo(1);
    fx.turn(tab, "f.txt", "1\nTWO\nthree\n"); // #3, a branch from #1

    List<CheckpointComparison.FileText> files = diff(tab, 2, tab, 3);
    assertThat(files).extracting(f -> f.delta().path()).containsExactly("f.txt", "new.txt");
    assertThat(files.get(0).header()).contains("--- a/f.txt\n+++ b/f.txt\n");
    assertThat(String.join("", files.get(0).hunks())).isEqualTo("@@ -1,3 +1,3 @@\n 1\n TWO\n-3\n+three\n");
    assertThat(files.get(1).header()).contains("deleted file mode 100644", "+++ /dev/null");
    assertThat(files.get(1).removed()).isEqualTo(1);
    assertThat(diff(tab, 2, tab, 3, "new.txt")).extracting(f -> f.delta().path()).containsExactly("new.txt");
    assertThat(diff(tab, 3, tab, 3)).isEmpty();
  }

  @Test
  void anotherTabsCheckpointIsComparedWithFilesOnlyOneTabChangedAsTheyWereBefore() throws IOException {
    fx.writeExternally("shared.txt", "start\n");
    fx.turn(tab, "shared.txt", "tab one\n");
    fx.turn(tab, "only-one.txt", "one\n");
    CheckpointTree other = fx.store.openTab("tab2");
    fx.turn(other, "shared.txt", "tab two\n");

    List<CheckpointComparison.FileText> files = diff(tab, 2, other, 1);
    assertThat(files).extracting(f -> f.delta().path()).containsExactly("only-one.txt", "shared.txt");
    assertThat(files.get(0).delta().to().exists()).as("tab2 never made only-one.txt").isFalse();
    assertThat(String.join("", files.get(1).hunks())).contains("-tab one\n+tab two\n");
  }

  @Test
  void binaryFilesAreSaidToDifferWithoutHunks() throws IOException {
    fx.turn(tab, "b.bin", "\0one");
    fx.turn(tab, "b.bin", "\0two");
    CheckpointComparison.FileText text = diff(tab, 1, tab, 2).get(0);
    assertThat(text.binary()).isTrue();
    assertThat(text.header()).contains("Binary files a/b.bin and b/b.bin differ");
    assertThat(text.hunks()).isEmpty();
  }

  @Test
  void aCheckpointTheTabLacksIsRefusedByNumber() {
    assertThatThrownBy(() -> new CheckpointAt(tab.snapshot(), 7)).hasMessage("Tab tab1 has no checkpoint #7.");
  }

  @Test
  void takingOneHunkOfTheOtherSideMergesItWithLaterEditsAsANewCheckpoint() throws IOException {
    String lines = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n";
    fx.writeExternally("f.txt", lines);
    fx.turn(tab, "f.txt", lines.replace("1\n2\n", "1\nTWO\n").replace("14\n", "FOURTEEN\n")); // #1: two hunks
    tab.undo(); // back to #0
    fx.writeExternally("f.txt", lines.replace("8\n", "eight, by hand\n")); // someone's later edit

    CheckpointAt zero = new CheckpointAt(tab.snapshot(), 0);
    CheckpointAt one = new CheckpointAt(tab.snapshot(), 1);
    assertThat(diff(tab, 0, tab, 1).get(0).hunks()).hasSize(2);
    RestoreResult taken = tab.take(zero, one, "f.txt", 1, true, "Took hunk 2", false);

    assertThat(taken.applied()).isTrue();
    assertThat(taken.merged()).containsExactly("f.txt");
    assertThat(fx.read("f.txt")).isEqualTo(lines.replace("8\n", "eight, by hand\n").replace("14\n", "FOURTEEN\n"));
    assertThat(tab.live()).isEqualTo(2);
    assertThat(Wording.restored(taken)).startsWith("Took hunk 2 as #2");

    tab.undo();
    assertThat(fx.read("f.txt")).isEqualTo(lines.replace("8\n", "eight, by hand\n"));
  }

  @Test
  void takingAWholeFileOfEitherSideWritesOrDeletesIt() throws IOException {
    fx.turn(tab, "made.txt", "made\n"); // #1
    CheckpointAt zero = new CheckpointAt(tab.snapshot(), 0);
    CheckpointAt one = new CheckpointAt(tab.snapshot(), 1);

    tab.take(zero, one, "made.txt", -1, false, "Took made.txt as #0 has it", false); // #0 has no such file
    assertThat(fx.exists("made.txt")).isFalse();
    tab.take(zero, one, "made.txt", -1, true, "Took made.txt as #1 has it", false);
    assertThat(fx.read("made.txt")).isEqualTo("made\n");
    assertThatThrownBy(() -> tab.take(zero, one, "made.txt", -1, true, "again", false))
        .hasMessageContaining("Nothing written");
    assertThatThrownBy(() -> tab.take(zero, one, "made.txt", 3, true, "a hunk", false))
        .hasMessageContaining("made.txt has 1 hunk; there is no hunk 4.");
    assertThatThrownBy(() -> tab.take(zero, one, "other.txt", -1, true, "x", false))
        .hasMessageContaining("hold other.txt alike");
  }

  @Test
  void aHunkTakenBackRestoresTheOldSidesLinesOnly() {
    byte[] a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n".getBytes();
    byte[] b = "1\nB\n3\n4\n5\n6\n7\n8\n9\nTEN".getBytes();
    Hunks hunks = new Hunks(a, b);
    assertThat(hunks.count()).isEqualTo(2);
    assertThat(new String(hunks.oldWithNew(1))).isEqualTo("1\n2\n3\n4\n5\n6\n7\n8\n9\nTEN");
    assertThat(new String(hunks.newWithOld(0))).isEqualTo("1\n2\n3\n4\n5\n6\n7\n8\n9\nTEN");
    assertThat(new String(hunks.newWithOld(1))).isEqualTo("1\nB\n3\n4\n5\n6\n7\n8\n9\n10\n");
  }
}
