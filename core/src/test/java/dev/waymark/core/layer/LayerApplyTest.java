package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.checkpoint.restore.TextMerge;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    LayerApply.Result result = LayerApply.apply(layer, Layers.read(layer).changes(), LayerApply.Bases.UNKNOWN,
        TextMerge::merge, (path, current, after) -> recorded.add(path));
    assertThat(Layers.tree(project)).isEqualTo(Layers.tree(reference));
    assertThat(result.clashes()).isEmpty();
    assertThat(recorded).isNotEmpty().allMatch(p -> !p.endsWith("/"));
    layer.delete();
    assertThat(layer.directory()).doesNotExist();
  }

  @Test
  void aUserWriteToAnotherFileDuringTheCommandIsKeptAndNotTheCommands() throws Exception {
    Layer layer = layers.run(project, "echo passed > test.log");
    Files.writeString(project.resolve("notes.txt"), "the user's note\n"); // an editor's save, after the command started
    List<String> recorded = new ArrayList<>();
    LayerApply.apply(layer, Layers.read(layer).changes(), LayerApply.Bases.UNKNOWN, TextMerge::merge,
        (path, current, after) -> recorded.add(path));
    assertThat(recorded).containsExactly("test.log");
    assertThat(project.resolve("notes.txt")).hasContent("the user's note");
    assertThat(project.resolve("test.log")).hasContent("passed");
  }

  @Test
  void aConcurrentEditOfTheSameFileIsMergedWhenTheBaseIsKnown() throws Exception {
    Layer layer = layers.run(project, "sed -i s/three/THREE/ a.txt");
    Thread.sleep(5); // a later change time than the layer's start on a coarse clock
    Files.writeString(project.resolve("a.txt"), "ONE\ntwo\nthree\n");
    var result = LayerApply.apply(layer, Layers.read(layer).changes(),
        path -> Optional.of("one\ntwo\nthree\n".getBytes()), TextMerge::merge, Layers.NO_RECORD);
    assertThat(result.merged()).containsExactly("a.txt");
    assertThat(project.resolve("a.txt")).hasContent("ONE\ntwo\nTHREE");
  }

  @Test
  void aClashKeepsTheUsersFileAndLeavesTheCommandsVersionInTheLayer() throws Exception {
    Layer layer = layers.run(project, "echo command > a.txt; rm b.txt");
    Thread.sleep(5);
    Files.writeString(project.resolve("a.txt"), "user\n");
    Files.writeString(project.resolve("b.txt"), "user kept this\n");
    var result = LayerApply.apply(layer, Layers.read(layer).changes(), LayerApply.Bases.UNKNOWN, TextMerge::merge,
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
    Thread.sleep(5);
    Files.writeString(project.resolve("a.txt"), "same\n");
    var result = LayerApply.apply(layer, Layers.read(layer).changes(), LayerApply.Bases.UNKNOWN, TextMerge::merge,
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
      assertThatThrownBy(() -> LayerApply.apply(layer, Layers.read(layer).changes(), LayerApply.Bases.UNKNOWN,
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
