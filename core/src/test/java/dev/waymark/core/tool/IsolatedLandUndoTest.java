package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.ViewFileDiff;
import dev.waymark.core.layer.View;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A land is undoable as a land (#47 case 3): undo puts the project back as it was before the land
 * and the tab back isolated, its view exactly as the land found it; redo lands again. A land that
 * sets everything aside leaves the tab isolated with its view (#47 case 4).
 */
class IsolatedLandUndoTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    ToolSettings settings = ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\nfour\n");
    Files.writeString(project.resolve("gone.txt"), "gone\n");
    f = new ToolFixture(temp, settings, List.of(), true);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void undoOfALandPutsTheProjectBackAndTheTabIsolatedWithItsViewAsItWas() throws IOException {
    f.call("write_file", "path", "new.txt", "content", "new\n");
    f.call("edit_file", "path", "a.txt", "old_string", "four", "new_string", "FOUR");
    assertThat(f.shell("rm gone.txt").isError()).isFalse();
    f.finish();
    f.write("a.txt", "ONE\ntwo\nthree\nfour\n"); // the user's edit, merged by the land
    var landed = f.tab.land();
    assertThat(landed.merged()).containsExactly("a.txt");
    assertThat(landed.landed()).containsExactlyInAnyOrder("new.txt", "gone.txt");
    assertThat(landed.deleted()).containsExactly("gone.txt");
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nFOUR\n");
    assertThat(f.tab.viewDirectory()).isEmpty();

    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("a.txt")).as("the project as before the land").isEqualTo("ONE\ntwo\nthree\nfour\n");
    assertThat(f.exists("new.txt")).isFalse();
    assertThat(f.read("gone.txt")).isEqualTo("gone\n");
    assertThat(f.tab.viewDirectory()).as("isolated again").isPresent();
    assertThat(viewed("a.txt")).as("the view's own version, not the merge").hasValue("one\ntwo\nthree\nFOUR\n");
    assertThat(viewed("new.txt")).hasValue("new\n");
    assertThat(viewed("gone.txt")).as("deleted in the view").isEmpty();
    assertThat(f.tab.viewFiles().orElseThrow()).extracting(ViewFileDiff::path).containsExactly("a.txt", "gone.txt", "new.txt");

    f.turn = f.tab.begin();
    f.call("write_file", "path", "later.txt", "content", "later\n");
    f.finish();
    assertThat(f.exists("later.txt")).as("the next turn writes into the view, not the project").isFalse();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.tab.redo().applied()).isTrue();
    assertThat(viewed("later.txt")).hasValue("later\n");

    assertThat(f.tab.goTo(2).applied()).as("to the land again: landed again").isTrue();
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nFOUR\n");
    assertThat(f.read("new.txt")).isEqualTo("new\n");
    assertThat(f.exists("gone.txt")).isFalse();
    assertThat(f.exists("later.txt")).as("not the other branch's").isFalse();
    assertThat(f.tab.viewDirectory()).isEmpty();
  }

  @Test
  void redoOfAnUndoneLandLandsAgainMergingWithWhatChangedSince() throws IOException {
    f.call("edit_file", "path", "a.txt", "old_string", "four", "new_string", "FOUR");
    f.finish();
    f.tab.land();
    assertThat(f.tab.undo().applied()).isTrue();
    f.write("a.txt", "ONE\ntwo\nthree\nfour\n");

    var redone = f.tab.redo();
    assertThat(redone.applied()).isTrue();
    assertThat(redone.merged()).containsExactly("a.txt");
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nFOUR\n");
    assertThat(f.tab.viewDirectory()).isEmpty();
  }

  @Test
  void redoOfAnUndoneLandThatClashesStopsAndLeavesTheTabIsolated() throws IOException {
    f.call("edit_file", "path", "a.txt", "old_string", "four", "new_string", "FOUR");
    f.finish();
    f.tab.land();
    assertThat(f.tab.undo().applied()).isTrue();
    f.write("a.txt", "one\ntwo\nthree\nfour, mine\n");

    var redone = f.tab.redo();
    assertThat(redone.applied()).as("a clash stops it, as any restore").isFalse();
    assertThat(redone.conflicts()).containsExactly("a.txt");
    assertThat(f.read("a.txt")).isEqualTo("one\ntwo\nthree\nfour, mine\n");
    assertThat(f.tab.viewDirectory()).as("still isolated, its view as it was").isPresent();
    assertThat(viewed("a.txt")).hasValue("one\ntwo\nthree\nFOUR\n");
  }

  @Test
  void aLandUndoneThenLandedAgainMergesFromTheSameBases() throws IOException {
    f.call("edit_file", "path", "a.txt", "old_string", "four", "new_string", "FOUR");
    f.finish();
    f.tab.land();
    assertThat(f.tab.undo().applied()).isTrue();
    f.write("a.txt", "ONE\ntwo\nthree\nfour\n"); // the user's edit after the undo

    var landed = f.tab.land();
    assertThat(landed.notLanded()).isEmpty();
    assertThat(f.read("a.txt")).as("merged from the base the view kept").isEqualTo("ONE\ntwo\nthree\nFOUR\n");
  }

  @Test
  void undoOfALandThatKeptTheTabIsolatedPutsTheViewBackAndRedoEmptiesIt() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "landed\n");
    f.finish();
    f.tab.land(true);
    assertThat(f.read("a.txt")).isEqualTo("landed\n");

    var undone = f.tab.undo();
    assertThat(undone.applied()).isTrue();
    assertThat(f.read("a.txt")).as("the land taken back out of the project").isEqualTo("one\ntwo\nthree\nfour\n");
    assertThat(viewed("a.txt")).hasValue("landed\n");
    assertThat(f.tab.viewDiffers()).isEqualTo(1);

    assertThat(f.tab.redo().applied()).isTrue();
    assertThat(f.read("a.txt")).isEqualTo("landed\n");
    assertThat(f.tab.viewDirectory()).as("still isolated").isPresent();
    assertThat(f.tab.viewDiffers()).isZero();
  }

  @Test
  void goingBackOverALandAndForwardAgainTakesItAsALand() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "first\n");
    f.nextTurn();
    f.call("write_file", "path", "new.txt", "content", "second\n");
    f.finish();
    f.tab.land();
    f.turn = f.tab.begin();
    f.call("write_file", "path", "after.txt", "content", "after the land\n");
    f.finish();
    assertThat(f.read("after.txt")).isEqualTo("after the land\n");

    assertThat(f.tab.goTo(1).applied()).isTrue();
    assertThat(f.tree()).as("the project as before the land").isEqualTo(Map.of(
        "a.txt", "f:" + hex("one\ntwo\nthree\nfour\n"), "gone.txt", "f:" + hex("gone\n")));
    assertThat(viewed("a.txt")).hasValue("first\n");
    assertThat(viewed("new.txt")).isEmpty();

    assertThat(f.tab.goTo(4).applied()).isTrue();
    assertThat(f.read("a.txt")).isEqualTo("first\n");
    assertThat(f.read("new.txt")).isEqualTo("second\n");
    assertThat(f.read("after.txt")).isEqualTo("after the land\n");
    assertThat(f.tab.viewDirectory()).isEmpty();
  }

  @Test
  void aLandThatSetsEverythingAsideLeavesTheTabIsolatedWithItsView() throws IOException {
    f.call("write_file", "path", "a.txt", "content", "the tab's\n");
    f.finish();
    f.write("a.txt", "the user's\n");
    var landed = f.tab.land();
    assertThat(landed.landed()).isEmpty();
    assertThat(landed.setAside()).containsExactly("a.txt");
    assertThat(f.read("a.txt")).isEqualTo("the user's\n");
    assertThat(f.tab.viewDirectory()).as("nothing of it landed: still isolated").isPresent();
    assertThat(viewed("a.txt")).hasValue("the tab's\n");
    assertThat(f.tab.viewChangedUnder()).as("and it still says the project changed under it").containsExactly("a.txt");
  }

  private Optional<String> viewed(String path) throws IOException {
    Optional<Path> at = View.read(f.tab.viewDirectory().orElseThrow()).orElseThrow().locate(path);
    return at.isEmpty() ? Optional.empty() : Optional.of(Files.readString(at.get()));
  }

  private static String hex(String text) {
    return HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8));
  }
}
