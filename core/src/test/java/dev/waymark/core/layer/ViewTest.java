package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ViewTest {
  @TempDir Path temp;
  Path project;
  Path views;

  @BeforeEach
  void project() throws Exception {
    project = Files.createDirectories(temp.resolve("project")).toRealPath();
    Files.writeString(project.resolve("a.txt"), "a");
    Files.createDirectories(project.resolve("src/main"));
    Files.writeString(project.resolve("src/main/App.java"), "app");
    Files.writeString(project.resolve("src/util.txt"), "util");
    views = temp.resolve("data/views");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aNewViewShowsTheProjectAsItIsNowAndCopiesNothing() throws Exception {
    View view = View.open(views, project, "t1");
    assertThat(Layers.treeReadFrom(view)).isEqualTo(Layers.tree(project));
    assertThat(view.empty()).isTrue();
    Files.writeString(project.resolve("a.txt"), "the user's edit");
    Files.writeString(project.resolve("new.txt"), "new");
    assertThat(Layers.treeReadFrom(view)).isEqualTo(Layers.tree(project));
    assertThat(view.differing()).isZero();
  }

  @Test
  void writesAndDeletesGoToTheViewAndTheProjectStaysAsItWas() throws Exception {
    Map<String, String> before = Layers.tree(project);
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("tab"), 0644);
    view.write("src/new/deep.txt", bytes("deep"), 0600);
    view.delete("src/util.txt");
    view.delete("src/main/App.java");
    view.write("src/main/App.java", bytes("again"), 0755);
    view.link("link", "a.txt");

    assertThat(Layers.tree(project)).isEqualTo(before);
    Map<String, String> seen = Layers.treeReadFrom(view);
    assertThat(seen).containsEntry("a.txt", "file 644 tab").containsEntry("src/new/deep.txt", "file 600 deep")
        .containsEntry("src/main/App.java", "file 755 again").containsEntry("link", "link a.txt")
        .doesNotContainKey("src/util.txt");
    assertThat(view.locate("src/util.txt")).isEmpty();
    assertThat(view.differing()).isEqualTo(5);
  }

  @Test
  void aFileWrittenBelowADirectoryTheViewDeletedDoesNotBringTheProjectsFilesBack() throws Exception {
    View view = View.open(views, project, "t1");
    view.delete("src/util.txt");
    // the view has no src/main/App.java either once src/main is deleted file by file, then made again
    view.delete("src/main/App.java");
    assertThat(view.list("src/main")).isEmpty();
    view.write("src/main/Other.java", bytes("other"), 0644);
    assertThat(view.list("src/main")).containsExactly("Other.java");
    assertThat(view.list("src")).containsExactly("main");
  }

  @Test
  void theBaseIsWhatTheProjectHeldWhenTheViewFirstChangedThePath() throws Exception {
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("tab 1"), 0644);
    Files.writeString(project.resolve("a.txt"), "the user's edit");
    view.write("a.txt", bytes("tab 2"), 0644);
    view.write("fresh.txt", bytes("fresh"), 0644);
    assertThat(view.bases().base("a.txt")).map(String::new).contains("a");
    assertThat(view.bases().existed("a.txt")).isTrue();
    assertThat(view.bases().existed("fresh.txt")).isFalse();
    assertThat(view.bases().base("src/util.txt")).isEqualTo(Optional.empty());
  }

  @Test
  void aViewSurvivesBeingOpenedAgain() throws Exception {
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("tab"), 0644);
    view.delete("src/util.txt");
    View again = View.open(views, project, "t1");
    assertThat(Layers.treeReadFrom(again)).isEqualTo(Layers.treeReadFrom(view));
    assertThat(again.since()).isEqualTo(view.since());
  }

  @Test
  void aCommandInTheViewSeesWhatTheToolsWroteThere() throws Exception {
    Layers layers = new Layers(temp.resolve("data/layers"));
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("tab"), 0644);
    view.delete("src/util.txt");
    view.delete("src/main/App.java");
    view.write("src/main/Other.java", bytes("other"), 0644);
    view.write("made/new.txt", bytes("new"), 0640);

    assertThat(layers.treeSeenIn(view)).isEqualTo(Layers.treeReadFrom(view));
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("a");
  }

  @Test
  void theToolsSeeWhatACommandInTheViewChanged() throws Exception {
    Layers layers = new Layers(temp.resolve("data/layers"));
    View view = View.open(views, project, "t1");
    Map<String, String> before = Layers.tree(project);
    layers.runIn(view, "printf cmd > a.txt && rm -r src/main && mkdir -p src/main/x && printf y > src/main/x/y.txt"
        + " && rm src/util.txt && ln -s a.txt l");

    assertThat(Layers.tree(project)).isEqualTo(before);
    Map<String, String> seen = Layers.treeReadFrom(view);
    assertThat(seen).isEqualTo(layers.treeSeenIn(view));
    assertThat(seen).containsEntry("a.txt", "file 644 cmd").containsEntry("src/main/x/y.txt", "file 644 y")
        .doesNotContainKeys("src/util.txt", "src/main/App.java").containsEntry("l", "link a.txt");
    // a file the tools write after the command is seen by the next command
    view.write("src/main/x/z.txt", bytes("z"), 0644);
    assertThat(layers.runIn(view, "cat src/main/x/z.txt")).isEqualTo("z");
  }

  @Test
  void aLandAppliesTheViewAndMergesWhatTheUserChangedSince() throws Exception {
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\n");
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("one\ntwo\nthree, the tab's\n"), 0644);
    view.write("made.txt", bytes("made"), 0644);
    view.delete("src/util.txt");
    Files.writeString(project.resolve("a.txt"), "one, the user's\ntwo\nthree\n");

    LayerJournal journal = new LayerJournal(Files.createDirectories(temp.resolve("data/layers")));
    Layer layer = view.land(journal, "t1#3");
    assertThat(view.empty()).isTrue();
    LayerApply.Result result = LayerApply.apply(layer, UpperReader.read(layer.upper(), project, Set.of()).changes(),
        layer.bases().orElseThrow(), ViewTest::lineMerge, Layers.NO_RECORD);

    assertThat(result.clashes()).isEmpty();
    assertThat(result.merged()).containsExactly("a.txt");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("one, the user's\ntwo\nthree, the tab's\n");
    assertThat(Files.readString(project.resolve("made.txt"))).isEqualTo("made");
    assertThat(project.resolve("src/util.txt")).doesNotExist();
    assertThat(Layers.treeReadFrom(view)).isEqualTo(Layers.tree(project));
  }

  @Test
  void aClashKeepsTheUsersFileAndTheTabsVersionInTheLayer() throws Exception {
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("tab"), 0644);
    Files.writeString(project.resolve("a.txt"), "user");
    Layer layer = view.land(new LayerJournal(Files.createDirectories(temp.resolve("data/layers"))), "t1#3");
    LayerApply.Result result = LayerApply.apply(layer, UpperReader.read(layer.upper(), project, Set.of()).changes(),
        layer.bases().orElseThrow(), (base, ours, theirs) -> Optional.empty(), Layers.NO_RECORD);
    assertThat(result.clashes()).extracting(LayerApply.Clash::path).containsExactly("a.txt");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("user");
    assertThat(Files.readString(result.clashes().get(0).commandVersion())).isEqualTo("tab");
  }

  @Test
  void aFileTheUserDidNotChangeSinceLandsWithoutAMerge() throws Exception {
    Files.write(project.resolve("bin.dat"), new byte[] {0, 1, 2});
    View view = View.open(views, project, "t1");
    view.write("bin.dat", new byte[] {0, 9}, 0644);
    Files.setLastModifiedTime(project.resolve("bin.dat"), FileTime.fromMillis(System.currentTimeMillis()));
    Layer layer = view.land(new LayerJournal(Files.createDirectories(temp.resolve("data/layers"))), "t1#3");
    LayerApply.Result result = LayerApply.apply(layer, UpperReader.read(layer.upper(), project, Set.of()).changes(),
        layer.bases().orElseThrow(), (base, ours, theirs) -> Optional.empty(), Layers.NO_RECORD);
    assertThat(result.clashes()).isEmpty();
    assertThat(Files.readAllBytes(project.resolve("bin.dat"))).containsExactly(0, 9);
  }

  @Test
  void aDiscardEmptiesTheViewAndKeepsWhatItHeld() throws Exception {
    View view = View.open(views, project, "t1");
    view.write("a.txt", bytes("tab"), 0644);
    Path kept = view.discard(temp.resolve("data/discarded"));
    assertThat(view.empty()).isTrue();
    assertThat(Layers.treeReadFrom(view)).isEqualTo(Layers.tree(project));
    assertThat(kept.resolve("upper/a.txt")).hasContent("tab");
  }

  /** A three-way line merge good enough for the tests: each side's changed lines, where they do not overlap. */
  static Optional<byte[]> lineMerge(byte[] base, byte[] ours, byte[] theirs) {
    String[] b = new String(base, StandardCharsets.UTF_8).split("\n", -1);
    String[] o = new String(ours, StandardCharsets.UTF_8).split("\n", -1);
    String[] t = new String(theirs, StandardCharsets.UTF_8).split("\n", -1);
    if (b.length != o.length || b.length != t.length) {
      return Optional.empty();
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < b.length; i++) {
      boolean oc = !o[i].equals(b[i]);
      boolean tc = !t[i].equals(b[i]);
      if (oc && tc && !o[i].equals(t[i])) {
        return Optional.empty();
      }
      out.append(oc ? o[i] : t[i]);
      if (i < b.length - 1) {
        out.append('\n');
      }
    }
    return Optional.of(out.toString().getBytes(StandardCharsets.UTF_8));
  }
}
