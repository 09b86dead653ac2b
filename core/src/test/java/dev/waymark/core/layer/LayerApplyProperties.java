package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.restore.TextMerge;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tag;

/**
 * A command run in a layer while the user edits files, then applied: the project must match a
 * reference model, the command's result with every user edit on top (a user's file is kept over
 * anything the command did to it or to the directories above it), and exactly the paths the
 * command changed and nobody else did are handed to the recorder.
 */
@Tag("load")
class LayerApplyProperties {
  static final List<String> FILES = List.of("a", "b", "s/c", "s/t/d");
  static final List<String> USER_FILES = List.of("a", "b", "s/c", "s/t/d", "s/new", "n");

  @Provide
  Arbitrary<List<String>> commands() {
    Arbitrary<String> file = Arbitraries.of(FILES);
    Arbitrary<String> op = Arbitraries.oneOf(
        file.map(f -> "mkdir -p $(dirname " + f + ") && echo cmd-" + f.hashCode() + " > " + f),
        file.map(f -> "rm -f " + f),
        file.map(f -> "[ -f " + f + " ] && chmod 700 " + f + " || true"),
        Arbitraries.just("rm -rf s"),
        Arbitraries.just("[ -d s ] && mv s s2 || true"),
        Arbitraries.just("rm -f a && ln -s b a"),
        Arbitraries.just("rm -rf s/t && echo file > s/t || true"));
    return op.map(o -> "{ " + o + "; } 2>/dev/null || true").list().ofMinSize(1).ofMaxSize(4);
  }

  @Provide
  Arbitrary<Map<String, String>> userEdits() {
    return Arbitraries.maps(Arbitraries.of(USER_FILES), Arbitraries.of("user1\n", "user2\n")).ofMaxSize(2);
  }

  @Property(tries = 40, shrinking = ShrinkingMode.BOUNDED)
  void theProjectMatchesTheModel(@ForAll("commands") List<String> command, @ForAll("userEdits") Map<String, String> user)
      throws Exception {
    Path temp = Files.createTempDirectory("layer-property");
    try {
      Path project = Files.createDirectories(temp.resolve("project")).toRealPath();
      for (String f : FILES) {
        Files.createDirectories(project.resolve(f).getParent());
        Files.writeString(project.resolve(f), "start-" + f + "\n");
      }
      Layers layers = new Layers(temp.resolve("layers"));
      String script = String.join("; ", command);
      Path reference = temp.resolve("reference");
      Layers.copy(project, reference);
      Layers.runPlain(reference, script);
      Layer layer = layers.run(project, script);
      Layers.pastStart(layer); // a later change time than the layer's start
      for (var edit : user.entrySet()) {
        Path target = project.resolve(edit.getKey());
        if (Files.isDirectory(target.getParent()) && !Files.isDirectory(target)) {
          Files.writeString(target, edit.getValue()); // an editor saves where it can
        }
      }
      Map<String, String> userDone = new TreeMap<>();
      for (String path : user.keySet()) {
        if (Files.isRegularFile(project.resolve(path))) {
          userDone.put(path, Files.readString(project.resolve(path)));
        }
      }
      List<String> recorded = new ArrayList<>();
      LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN, TextMerge::merge,
          (path, current, after) -> recorded.add(path));

      Map<String, String> expected = new TreeMap<>(Layers.tree(reference));
      for (var edit : userDone.entrySet()) {
        String path = edit.getKey();
        expected.keySet().removeIf(p -> p.startsWith(path + "/"));
        for (String dir = parent(path); dir != null; dir = parent(dir)) {
          String was = expected.get(dir);
          if (was == null || !was.startsWith("dir ")) {
            expected.put(dir, "dir 755");
          }
        }
        expected.put(path, "file 644 " + edit.getValue());
      }
      assertThat(Layers.tree(project)).isEqualTo(expected);
      assertThat(recorded).filteredOn(userDone::containsKey).isEmpty();
    } finally {
      try (var all = Files.walk(temp)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          p.toFile().setWritable(true);
          p.toFile().setExecutable(true);
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** What the user does while the command runs, besides editing files: moves a folder in, or makes a directory a link. */
  enum UserAction { NONE, MOVE_FOLDER_INTO_S, LINK_S_T_OUTSIDE, LINK_S_OUTSIDE }

  @Provide
  Arbitrary<List<String>> kindChanges() {
    Arbitrary<String> file = Arbitraries.of(FILES);
    Arbitrary<String> op = Arbitraries.oneOf(
        file.map(f -> "mkdir -p $(dirname " + f + ") && echo cmd-" + f.hashCode() + " > " + f),
        file.map(f -> "rm -f " + f),
        Arbitraries.just("rm -rf s"),
        Arbitraries.just("[ -d s ] && mv s s2 || true"),
        Arbitraries.just("rm -rf s && mkdir s && echo opaque > s/o"),
        Arbitraries.just("rm -rf s/t && ln -s ../a s/t"),
        Arbitraries.just("rm -rf s/t && echo file > s/t"),
        Arbitraries.just("rm -rf b && mkdir -p b/x && echo nb > b/x/y"),
        Arbitraries.just("rm -rf a && ln -s s a"),
        Arbitraries.just("rm -rf s && ln -s b s"));
    return op.map(o -> "{ " + o + "; } 2>/dev/null || true").list().ofMinSize(1).ofMaxSize(4);
  }

  /**
   * Kind changes (file, directory, link, both ways), opaque directories and whiteouts, while the
   * user edits files, moves a folder in or makes a directory a link to one outside: the project
   * ends as the command left it with everything the user made while it ran on top, nothing outside
   * the project changes, and nothing below the user's link or in the user's folder is recorded.
   */
  @Property(tries = 40, shrinking = ShrinkingMode.BOUNDED)
  void kindChangesAndTheUsersFoldersAndLinksMatchTheModel(@ForAll("kindChanges") List<String> command,
      @ForAll("userEdits") Map<String, String> user, @ForAll UserAction action) throws Exception {
    Path temp = Files.createTempDirectory("layer-property");
    try {
      Path project = Files.createDirectories(temp.resolve("project")).toRealPath();
      for (String f : FILES) {
        Files.createDirectories(project.resolve(f).getParent());
        Files.writeString(project.resolve(f), "start-" + f + "\n");
      }
      Path outside = Files.createDirectories(temp.resolve("outside"));
      Files.writeString(outside.resolve("secret"), "outside\n");
      Files.createDirectories(outside.resolve("o"));
      Map<String, String> outsideBefore = Layers.tree(outside);
      Layers layers = new Layers(temp.resolve("layers"));
      String script = String.join("; ", command);
      Path reference = temp.resolve("reference");
      Layers.copy(project, reference);
      Layers.runPlain(reference, script);
      Layer layer = layers.run(project, script);
      Layers.pastStart(layer); // a later change time than the layer's start
      List<String> usersOwn = new ArrayList<>();
      for (var edit : user.entrySet()) {
        Path target = project.resolve(edit.getKey());
        if (Files.isDirectory(target.getParent(), LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(target)) {
          Files.writeString(target, edit.getValue());
          usersOwn.add(edit.getKey());
        }
      }
      if (action == UserAction.MOVE_FOLDER_INTO_S && Files.isDirectory(project.resolve("s"), LinkOption.NOFOLLOW_LINKS)) {
        Path folder = Files.createDirectories(temp.resolve("folder/sub"));
        Files.writeString(folder.resolve("f"), "the user's, from elsewhere\n"); // an old change time, kept by the move
        Files.move(folder.getParent(), project.resolve("s/moved"));
        usersOwn.add("s/moved");
      }
      String linked = action == UserAction.LINK_S_T_OUTSIDE ? "s/t" : action == UserAction.LINK_S_OUTSIDE ? "s" : null;
      if (linked != null && Files.isDirectory(project.resolve(linked), LinkOption.NOFOLLOW_LINKS)
          && Files.isDirectory(project.resolve(linked).getParent(), LinkOption.NOFOLLOW_LINKS)) {
        Files.move(project.resolve(linked), temp.resolve("away"));
        Files.createSymbolicLink(project.resolve(linked), outside);
        usersOwn.add(linked);
      } else {
        linked = null;
      }
      Map<String, String> before = Layers.tree(project);
      List<String> recorded = new ArrayList<>();
      LayerApply.apply(layer, Layers.read(layer).changes(), ApplyBases.UNKNOWN, TextMerge::merge,
          (path, current, after) -> recorded.add(path));

      Map<String, String> expected = new TreeMap<>(Layers.tree(reference));
      for (String own : usersOwn) {
        if (!before.containsKey(own)) {
          continue; // below what the user made a link afterwards
        }
        expected.keySet().removeIf(p -> p.equals(own) || p.startsWith(own + "/"));
        for (String dir = parent(own); dir != null; dir = parent(dir)) {
          String was = expected.get(dir);
          if (was == null || !was.startsWith("dir ")) {
            expected.put(dir, "dir 755");
          }
        }
        before.forEach((p, what) -> {
          if (p.equals(own) || p.startsWith(own + "/")) {
            expected.put(p, what);
          }
        });
      }
      assertThat(Layers.tree(outside)).as("nothing outside the project changes").isEqualTo(outsideBefore);
      assertThat(Layers.tree(project)).isEqualTo(expected);
      for (String own : usersOwn) {
        assertThat(recorded).as("the user's own, not the command's").noneMatch(p -> p.equals(own) || p.startsWith(own + "/"));
      }
    } finally {
      try (var all = Files.walk(temp)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          p.toFile().setWritable(true);
          p.toFile().setExecutable(true);
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? null : path.substring(0, slash);
  }
}
