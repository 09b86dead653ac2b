package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.checkpoint.restore.TextMerge;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Applying a layer leaves the project as the command would have left it, and never loses a concurrent edit. */
class LayerApplyTest {
  @TempDir Path temp;
  Path project;
  Layers layers;

  @BeforeEach
  void project() throws IOException {
    project = Files.createDirectories(temp.resolve("project")).toRealPath();
    layers = new Layers(temp.resolve("layers"));
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\n");
    Files.writeString(project.resolve("b.txt"), "b\n");
    Files.createDirectories(project.resolve("d/e"));
    Files.writeString(project.resolve("d/e/f.txt"), "f\n");
    Files.writeString(project.resolve("d/keep.txt"), "k\n");
    Files.createSymbolicLink(project.resolve("link"), Path.of("b.txt"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "echo n > new.txt; echo more >> a.txt; rm b.txt",
      "rm -rf d",
      "mv d moved",
      "rm a.txt && ln -s b.txt a.txt",
      "chmod 700 d/keep.txt; chmod 711 d/e",
      "rm -rf d && mkdir -p d/e && echo new > d/e/g.txt",
      "rm -rf d && echo now-a-file > d; rm a.txt && mkdir -p a.txt/x && touch a.txt/x/y",
      "rm link && mkdir link; ln -sf a.txt b.txt",
      "mkdir -p deep/er/est && seq 1 2000 > deep/er/est/n && chmod +x deep/er/est/n"})
  void theProjectEndsAsTheCommandLeftIt(String script) throws Exception {
    Path reference = temp.resolve("reference");
    Layers.copy(project, reference);
    Layers.runPlain(reference, script);
    Layer layer = layers.run(project, script);
    List<String> recorded = new ArrayList<>();
    LayerApply.Result result = LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN,
        TextMerge::merge, (path, current, after) -> recorded.add(path));
    assertThat(Layers.tree(project)).isEqualTo(Layers.tree(reference));
    assertThat(result.clashes()).isEmpty();
    assertThat(recorded).isNotEmpty().allMatch(p -> !p.endsWith("/"));
    layer.delete();
    assertThat(layer.directory()).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"d", "d/e"})
  void aDirectoryThatBecameALinkWhileTheCommandRanIsNeverWrittenThrough(String linked) throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.createDirectories(outside.resolve(".ssh"));
    Files.writeString(outside.resolve(".ssh/authorized_keys"), "the user's key\n");
    Files.writeString(outside.resolve("keep.txt"), "outside\n");
    Files.writeString(outside.resolve("f.txt"), "outside\n");
    Files.createDirectories(outside.resolve("e"));
    Files.writeString(outside.resolve("e/f.txt"), "outside\n");
    Map<String, String> outsideBefore = Layers.tree(outside);
    Layer layer = layers.run(project, "mkdir -p d/.ssh && echo attacker > d/.ssh/authorized_keys; rm d/keep.txt; "
        + "echo changed > d/e/f.txt; mkdir -p d/e/n && echo n > d/e/n/x; chmod 700 d/e; "
        + "rm -rf d/e && mkdir d/e && echo again > d/e/f.txt");
    // meanwhile another apply (or process) made the directory a link to one outside the project
    Files.move(project.resolve(linked), temp.resolve("moved-away"));
    Files.createSymbolicLink(project.resolve(linked), outside);
    List<Path> toldCurrent = new ArrayList<>();
    LayerApply.Result result = LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN,
        TextMerge::merge, new LayerApply.Recorder() {
          @Override
          public void beforeChange(String path, Path current, Path after) throws IOException {
            if (current != null) {
              // where it is (a link itself is told as a link, its target unread), looked at while the apply runs
              toldCurrent.add(current.getParent().toRealPath().resolve(current.getFileName()));
            }
          }

          @Override
          public void clashed(String path, Path current, Path commandVersion) throws IOException {
            beforeChange(path, current, commandVersion);
          }
        });
    assertThat(Layers.tree(outside)).as("nothing outside the project is written, deleted or chmod'ed").isEqualTo(outsideBefore);
    assertThat(Files.isSymbolicLink(project.resolve(linked))).isTrue();
    for (Path current : toldCurrent) {
      assertThat(current.startsWith(outside.toRealPath())).as("read through the link: " + current).isFalse();
    }
    // the link itself is someone else's change the command's directory clashes with; what is below it is refused
    assertThat(result.clashes()).extracting(LayerApply.Clash::path).contains(linked + "/");
    assertThat(result.clashes()).as("refused, and said").filteredOn(c -> c.path().startsWith(linked + "/") && c.path().length() > linked.length() + 1)
        .isNotEmpty().allMatch(c -> c.reason().contains(linked + " is a link"), "names the link");
    assertThat(result.clashes()).extracting(LayerApply.Clash::path).contains("d/e/f.txt");
  }

  @ParameterizedTest
  @ValueSource(strings = {"rm -rf d", "rm -rf d && mkdir d && echo new > d/new.txt", "rm -rf d/e", "rm -rf d && echo f > d"})
  void aFolderTheUserMovesIntoADirectoryTheCommandDeletesIsKept(String script) throws Exception {
    Path photos = Files.createDirectories(temp.resolve("elsewhere/photos/2024"));
    Files.writeString(photos.resolve("a.jpg"), "the user's photo\n");
    Files.writeString(photos.resolveSibling("index"), "index\n");
    Files.createDirectories(temp.resolve("elsewhere/empty"));
    Layer layer = layers.run(project, script);
    // the user's, moved in after the command started: their files keep their old change times
    String into = script.contains("d/e") ? "d/e" : "d";
    Files.move(photos.getParent(), project.resolve(into + "/photos"));
    Files.move(temp.resolve("elsewhere/empty"), project.resolve(into + "/empty"));
    LayerApply.Result result = LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN,
        TextMerge::merge, Layers.NO_RECORD);
    assertThat(project.resolve(into + "/photos/2024/a.jpg")).hasContent("the user's photo");
    assertThat(project.resolve(into + "/photos/index")).hasContent("index");
    assertThat(project.resolve(into + "/empty")).isEmptyDirectory();
    assertThat(project.resolve(into.equals("d") ? "d/keep.txt" : "d/e/f.txt")).as("what the command deleted").doesNotExist();
    assertThat(result.clashes()).extracting(LayerApply.Clash::path).contains(into + "/photos/", into + "/empty/");
  }

  @Test
  void entriesWhoseNamesAreNotUtf8AreNeitherDeletedNorMadeThroughALink() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    String odd = "$(printf '\\377')";
    Layers.runPlain(project, "printf mine > d/" + odd + "x");
    Layers.runPlain(outside, "printf outside > " + odd + "x");
    Layer layer = layers.run(project, "rm d/" + odd + "x; printf new > d/" + odd + "new");
    Files.move(project.resolve("d"), temp.resolve("moved-away"));
    Files.createSymbolicLink(project.resolve("d"), outside);
    LayerChanges read = Layers.read(layer);
    assertThat(read.unnamed()).hasSize(2);
    UnnamedEntries.deleteFirst(read.unnamed());
    UnnamedEntries.moveAfter(read.unnamed());
    try (var names = Files.list(outside)) {
      List<Path> there = names.toList();
      assertThat(there).as("nothing is made there").hasSize(1);
      assertThat(there.get(0)).as("the file outside is kept").hasContent("outside");
    }
  }

  @Test
  void aUserWriteToAnotherFileDuringTheCommandIsKeptAndNotTheCommands() throws Exception {
    Layer layer = layers.run(project, "echo passed > test.log");
    Files.writeString(project.resolve("notes.txt"), "the user's note\n"); // an editor's save, after the command started
    List<String> recorded = new ArrayList<>();
    LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN, TextMerge::merge,
        (path, current, after) -> recorded.add(path));
    assertThat(recorded).containsExactly("test.log");
    assertThat(project.resolve("notes.txt")).hasContent("the user's note");
    assertThat(project.resolve("test.log")).hasContent("passed");
  }

  @Test
  void aConcurrentEditOfTheSameFileIsMergedWhenTheBaseIsKnown() throws Exception {
    Layer layer = layers.run(project, "sed -i s/three/THREE/ a.txt");
    Layers.pastStart(layer); // a later change time than the layer's start
    Files.writeString(project.resolve("a.txt"), "ONE\ntwo\nthree\n");
    var result = LayerApply.apply(layer, Layers.read(layer).changes(),
        path -> Optional.of("one\ntwo\nthree\n".getBytes()), TextMerge::merge, Layers.NO_RECORD);
    assertThat(result.merged()).containsExactly("a.txt");
    assertThat(project.resolve("a.txt")).hasContent("ONE\ntwo\nTHREE");
  }

  @Test
  void aClashKeepsTheUsersFileAndLeavesTheCommandsVersionInTheLayer() throws Exception {
    Layer layer = layers.run(project, "echo command > a.txt; rm b.txt");
    Layers.pastStart(layer); // a later change time than the layer's start
    Files.writeString(project.resolve("a.txt"), "user\n");
    Files.writeString(project.resolve("b.txt"), "user kept this\n");
    var result = LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN, TextMerge::merge,
        Layers.NO_RECORD);
    assertThat(result.clashes()).extracting(LayerApply.Clash::path).containsExactlyInAnyOrder("a.txt", "b.txt");
    assertThat(project.resolve("a.txt")).hasContent("user");
    assertThat(project.resolve("b.txt")).hasContent("user kept this");
    LayerApply.Clash a = result.clashes().stream().filter(c -> c.path().equals("a.txt")).findFirst().orElseThrow();
    assertThat(a.commandVersion()).hasContent("command");
  }

  @Test
  void theSameChangeMadeByBothIsNotAClash() throws Exception {
    Layer layer = layers.run(project, "echo same > a.txt");
    Layers.pastStart(layer); // a later change time than the layer's start
    Files.writeString(project.resolve("a.txt"), "same\n");
    var result = LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN, TextMerge::merge,
        Layers.NO_RECORD);
    assertThat(result.clashes()).isEmpty();
    assertThat(project.resolve("a.txt")).hasContent("same");
  }

  @Test
  void aKillDuringTheApplyIsFinishedFromTheLayerLeftBehind() throws Exception {
    String script = "echo 1 > one; echo 2 > two; rm b.txt; mkdir -p n && echo 3 > n/three; mv d moved";
    Path reference = temp.resolve("reference");
    Layers.copy(project, reference);
    Layers.runPlain(reference, script);
    Layer layer = layers.run(project, script);
    int[] made = {0};
    List<String> recordedFirst = new ArrayList<>();
    LayerApply.afterStep = () -> {
      if (++made[0] == 4) {
        throw new IllegalStateException("killed");
      }
    };
    try {
      assertThatThrownBy(() -> LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN,
          TextMerge::merge, (path, current, after) -> recordedFirst.add(path))).hasMessage("killed");
    } finally {
      LayerApply.afterStep = () -> {};
    }
    assertThat(recordedFirst).as("every change is told before the first is made").hasSize(8);
    assertThat(Layers.tree(project)).isNotEqualTo(Layers.tree(reference));
    // the next start: the layer is still on disk with its journal and the apply's plan, whose rest is made
    Layer again = Layer.read(layer.directory());
    LayerApply.Result rest = ApplyPlan.read(again).finish(TextMerge::merge, Layers.NO_RECORD);
    assertThat(Layers.tree(project)).isEqualTo(Layers.tree(reference));
    assertThat(rest.clashes()).isEmpty();
    // the first ones made (deletions, deepest first) are not made again
    assertThat(rest.applied()).doesNotContain("d/keep.txt", "d/e/f.txt").contains("b.txt", "one", "moved/keep.txt");
    again.delete();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aKillAfterAMergeWasPlannedFinishesWithTheMergeNotTheCommandsVersion(int killedAfter) throws Exception {
    Layer layer = layers.run(project, "sed -i s/three/THREE/ a.txt; echo n > new.txt");
    do { // the user's save, seen as later than the layer's start however coarse the clock
      Files.writeString(project.resolve("a.txt"), "ONE\ntwo\nthree\n");
    } while (!layer.changedSince(project.resolve("a.txt")));
    try (AutoCloseable kill = ApplyKills.after(killedAfter)) {
      assertThatThrownBy(() -> LayerApply.apply(layer, Layers.read(layer).changes(),
          path -> Optional.of("one\ntwo\nthree\n".getBytes()), TextMerge::merge, Layers.NO_RECORD))
          .isInstanceOf(ApplyKills.Killed.class);
    }
    LayerApply.Result rest = ApplyPlan.read(Layer.read(layer.directory())).finish(TextMerge::merge, Layers.NO_RECORD);
    assertThat(rest.clashes()).isEmpty();
    assertThat(project.resolve("a.txt")).hasContent("ONE\ntwo\nTHREE");
    assertThat(project.resolve("new.txt")).hasContent("n");
    assertThat(layer.upper().resolve("a.txt")).doesNotExist();
  }

  @Test
  void aLayerWhoseProcessIsGoneIsLeftBehindAndOnlyForItsOwner() throws Exception {
    Layer mine = layers.journal.begin(project, "tab-1/3", "m");
    Layer dead = layers.journal.begin(project, "tab-1/4", "m");
    Path journal = dead.directory().resolve(Layer.JOURNAL);
    Files.writeString(journal, Files.readString(journal).replaceAll("\"pid\":\\d+", "\"pid\":999999999"));
    assertThat(mine.mine()).isTrue();
    assertThat(layers.journal.leftBehind("tab-1/3"::equals)).isEmpty();
    assertThat(layers.journal.leftBehind("tab-1/4"::equals)).containsExactly(dead);
  }
}
