package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tag;

/**
 * What a shell command records is exactly what a plain model says it changed (files written or
 * deleted, directories moved or deleted whole, with the user editing between commands): every
 * path whose content differs after the command, except paths the {@code .gitignore} of the command's start
 * leaves out (whatever the command does to {@code .gitignore}) and what another tab wrote while it
 * ran. Undo then brings back every recorded path and touches nothing else; redo reapplies it.
 *
 * <p>The model knows the few ignore patterns the generator writes and matches them itself.
 */
@Tag("load")
@Tag("process")
class ShellCaptureProperties {
  static final List<String> PATHS = List.of("a.txt", "b.txt", "src/c.txt", ".env", "data/d.txt", "x.log", ".gitignore");
  static final List<String> IGNORE_VARIANTS = List.of("", ".env\ndata/\n*.log\n", "src/\n", "*.txt\n!a.txt\n", ".env\n");
  static final String OTHER_TAB_FILE = "other.txt";
  /** Every path a command can make: {@link #PATHS} and where a moved directory takes {@code src/c.txt}. */
  static final List<String> UNIVERSE = Stream.concat(PATHS.stream(), Stream.of("lib/c.txt")).toList();

  /** One operation of a command on one path: new content, or null to delete it. */
  record Op(String path, String content) {}

  /**
   * A command: its operations (a content of {@code MOVE:dir} moves the directory at the path there,
   * {@code RMDIR} deletes it whole), whether another tab writes its file while it runs, and whether
   * the user edits a file just before it (never the command's).
   */
  record Command(List<Op> ops, boolean otherTabWrites, boolean userEditsBefore) {}

  @Provide
  Arbitrary<Map<String, String>> starts() {
    Arbitrary<String> content = Arbitraries.of("one\n", "two\n", "three\n");
    return Arbitraries.subsetOf(PATHS.subList(0, PATHS.size() - 1)).flatMap(paths -> {
      List<String> sorted = new ArrayList<>(new TreeSet<>(paths));
      return content.list().ofSize(sorted.size()).flatMap(contents -> Arbitraries.of(IGNORE_VARIANTS).map(ignore -> {
        Map<String, String> files = new TreeMap<>();
        for (int i = 0; i < sorted.size(); i++) {
          files.put(sorted.get(i), contents.get(i));
        }
        if (!ignore.isEmpty()) {
          files.put(".gitignore", ignore);
        }
        return files;
      }));
    });
  }

  @Provide
  Arbitrary<List<Command>> commands() {
    Arbitrary<Op> op = Combinators.combine(Arbitraries.of(PATHS),
        Arbitraries.of("one\n", "changed\n", "new content\n", "", null).injectNull(0.0))
        .as((path, content) -> path.equals(".gitignore") && content != null
            ? new Op(path, IGNORE_VARIANTS.get(Math.abs(content.hashCode()) % IGNORE_VARIANTS.size()))
            : new Op(path, content));
    Arbitrary<Op> directoryOp = Arbitraries.of(new Op("src", "MOVE:lib"), new Op("lib", "MOVE:src"), new Op("src", "RMDIR"),
        new Op("lib", "RMDIR"));
    Arbitrary<Command> command = Combinators.combine(Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(4, op), net.jqwik.api.Tuple.of(1, directoryOp)).list().ofMinSize(1).ofMaxSize(4),
        Arbitraries.of(true, false), Arbitraries.of(true, false))
        .as(Command::new);
    return command.list().ofMinSize(1).ofMaxSize(3);
  }

  @Property(tries = 150, shrinking = ShrinkingMode.BOUNDED)
  void aCommandRecordsExactlyWhatItChangedOutsideTheIgnoredPathsOfItsStart(
      @ForAll("starts") Map<String, String> start, @ForAll("commands") List<Command> commands) throws Exception {
    Path root = Files.createTempDirectory(CheckpointTreeProperties.SCRATCH, "shellprop-");
    try {
      Path project = Files.createDirectories(root.resolve("project"));
      for (var e : start.entrySet()) {
        write(project, e.getKey(), e.getValue());
        Files.setLastModifiedTime(project.resolve(e.getKey()), FileTime.from(Instant.now().minusSeconds(60)));
      }
      try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(root.resolve("home")), RetentionPolicy.DEFAULT)) {
        CheckpointTree shell = store.openTab("shell");
        CheckpointTree other = store.openTab("other");
        int otherWrites = 0;
        int userEdits = 0;
        // files the store saw, unchanged since: kept, whatever ignore rule a later command wrote
        Set<String> known = new TreeSet<>();
        for (Command command : commands) {
          if (command.userEditsBefore()) {
            write(project, "b.txt", "the user's edit " + (++userEdits) + "\n");
            known.remove("b.txt");
          }
          Map<String, String> before = disk(project);
          Set<String> ignoredAtStart = ignored(before.get(".gitignore"));
          ignoredAtStart.removeIf(path -> known.contains(path) && before.containsKey(path));
          Turn turn = shell.begin();
          WorkTreeSnapshot snapshot = turn.snapshotWorkTree(1 << 20);
          // a directory moved out of an ignored one holds the user's files, not new ones: never recorded as created
          Set<String> movedFromIgnored = new TreeSet<>();
          for (Op op : command.ops()) {
            Path at = project.resolve(op.path());
            if (op.content() == null) {
              if (!Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
                Files.deleteIfExists(at);
              }
            } else if (op.content().startsWith("MOVE:")) {
              Path to = project.resolve(op.content().substring(5));
              if (Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS) && !Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
                Files.move(at, to);
                if (before.keySet().stream().anyMatch(p -> p.startsWith(op.path() + "/") && ignoredAtStart.contains(p))) {
                  movedFromIgnored.add(op.content().substring(5) + "/");
                }
              }
            } else if (op.content().equals("RMDIR")) {
              if (Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(at);
              }
            } else if (!Files.isDirectory(at.getParent(), LinkOption.NOFOLLOW_LINKS) && Files.exists(at.getParent())) {
              continue; // its directory is a file now: the command's write fails
            } else {
              write(project, op.path(), op.content());
            }
          }
          if (command.otherTabWrites()) {
            Turn otherTurn = other.begin();
            String text = "other " + (++otherWrites) + "\n";
            otherTurn.recordAhead(OTHER_TAB_FILE, otherTurn.read(OTHER_TAB_FILE), FileState.regular(text));
            write(project, OTHER_TAB_FILE, text);
            otherTurn.finish(CheckpointStatus.DONE);
          }
          Map<String, String> after = disk(project);
          known.clear();
          for (String path : after.keySet()) {
            if (!ignoredAtStart.contains(path) && movedFromIgnored.stream().noneMatch(path::startsWith)) {
              known.add(path);
            }
          }

          List<String> recorded = snapshot.recordChanges().recorded().stream().map(FileChange::path).sorted().toList();
          turn.finish(CheckpointStatus.DONE);

          Set<String> expected = new TreeSet<>();
          for (String path : UNIVERSE) {
            boolean moved = before.get(path) == null && movedFromIgnored.stream().anyMatch(path::startsWith);
            if (!ignoredAtStart.contains(path) && !moved && !Objects.equals(before.get(path), after.get(path))) {
              expected.add(path);
            }
          }
          assertThat(recorded).as("recorded by %s from %s", command, before).containsExactlyElementsOf(expected);

          if (!expected.isEmpty()) {
            assertThat(shell.undo().applied()).isTrue();
            Map<String, String> undone = disk(project);
            for (String path : union(before, after)) {
              String want = expected.contains(path) ? before.get(path) : after.get(path);
              assertThat(undone.get(path)).as("after undo of %s: %s", command, path).isEqualTo(want);
            }
            assertThat(shell.redo().applied()).isTrue();
            assertThat(disk(project)).as("after redo of %s", command).isEqualTo(after);
            known.removeAll(expected); // rewritten by the redo: the store wrote them, its stat cache did not see them
          }
        }
      }
    } finally {
      try (Stream<Path> walk = Files.walk(root)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The paths of {@link #PATHS} that {@code gitignore} (one of {@link #IGNORE_VARIANTS}) leaves out. */
  static Set<String> ignored(String gitignore) {
    Set<String> ignored = new TreeSet<>();
    if (gitignore == null) {
      return ignored;
    }
    for (String path : UNIVERSE) {
      boolean out = false;
      for (String pattern : gitignore.split("\n")) {
        if (pattern.isEmpty()) {
          continue;
        }
        boolean negated = pattern.startsWith("!");
        String p = negated ? pattern.substring(1) : pattern;
        boolean matches = p.endsWith("/") ? path.startsWith(p)
            : p.startsWith("*.") ? path.substring(path.lastIndexOf('/') + 1).endsWith(p.substring(1))
            : path.equals(p);
        if (matches) {
          out = !negated;
        }
      }
      if (out) {
        ignored.add(path);
      }
    }
    return ignored;
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static Set<String> union(Map<String, String> a, Map<String, String> b) {
    Set<String> all = new TreeSet<>(a.keySet());
    all.addAll(b.keySet());
    return all;
  }

  private static void write(Path project, String path, String content) throws IOException {
    Path file = project.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, UTF_8);
  }

  /** Every file in the project, by relative path. */
  private static Map<String, String> disk(Path project) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(project)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          files.put(project.relativize(p).toString(), Files.readString(p, UTF_8));
        }
      }
    }
    return files;
  }
}
