package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.restore.TextMerge;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * A command run in a layer while the user edits files, then applied: the project must match a
 * reference model, the command's result with every user edit on top (a user's file is kept over
 * anything the command did to it or to the directories above it), and exactly the paths the
 * command changed and nobody else did are handed to the recorder.
 */
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
      Thread.sleep(2);
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
      LayerApply.apply(layer, Layers.read(layer).changes(), LayerApply.Bases.UNKNOWN, TextMerge::merge,
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
        for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
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
