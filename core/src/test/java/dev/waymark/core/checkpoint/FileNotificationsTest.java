package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With file notifications, a command after the first looks only at what something touched since
 * the scan it starts from, and still records exactly what it changed: files, directories moved
 * or replaced, new directories, and nothing that happened between commands.
 */
class FileNotificationsTest {
  private static final long MAX = 1 << 20;
  @TempDir Path temp;
  Path project;
  ShadowStore store;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    assumeTrue(System.getProperty("os.name").startsWith("Linux"), "file notifications are used on Linux");
    project = Files.createDirectories(temp.resolve("project"));
    for (int i = 0; i < 200; i++) {
      writeOld("src/m" + (i % 10) + "/f" + i + ".txt", "file " + i + "\n");
    }
    writeOld("a.txt", "a\n");
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    tab = store.openTab("t");
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private void writeOld(String path, String content) throws IOException {
    Path file = project.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, UTF_8);
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
  }

  private void write(String path, String content) throws IOException {
    Path file = project.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, UTF_8);
  }

  private String read(String path) throws IOException {
    return Files.readString(project.resolve(path), UTF_8);
  }

  /** A command: the snapshot before, what {@code command} does, and the paths recorded. */
  private List<String> command(Action command) throws Exception {
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    command.run();
    WorkTreeChanges changes = snapshot.recordChanges();
    turn.finish(CheckpointStatus.DONE);
    return changes.recorded().stream().map(FileChange::path).sorted().toList();
  }

  private interface Action {
    void run() throws Exception;
  }

  @Test
  void theFirstCommandWalksEverythingAndALaterOneOnlyWhatWasTouched() throws Exception {
    Turn first = tab.begin();
    WorkTreeSnapshot whole = first.snapshotWorkTree(MAX);
    assertThat(whole.examinedCount()).isEqualTo(201);
    write("a.txt", "changed\n");
    assertThat(whole.recordChanges().recorded()).extracting(FileChange::path).containsExactly("a.txt");
    first.finish(CheckpointStatus.DONE);

    write("src/m3/f3.txt", "edited between commands\n");
    Turn second = tab.begin();
    WorkTreeSnapshot later = second.snapshotWorkTree(MAX);
    assertThat(later.examinedCount()).as("only the file edited since").isEqualTo(1);
    assertThat(later.fileCount()).isEqualTo(201);
    write("src/m4/f4.txt", "by the second command\n");
    assertThat(later.recordChanges().recorded()).extracting(FileChange::path).containsExactly("src/m4/f4.txt");
    second.finish(CheckpointStatus.DONE);
  }

  @Test
  void changesMadeBetweenCommandsAreNotTakenForTheNextOne() throws Exception {
    assertThat(command(() -> write("a.txt", "one\n"))).containsExactly("a.txt");
    write("src/m1/f1.txt", "the user's edit\n");
    Files.delete(project.resolve("src/m2/f2.txt"));
    assertThat(command(() -> write("b.txt", "two\n"))).containsExactly("b.txt");
    tab.undo();
    assertThat(project.resolve("b.txt")).doesNotExist();
    assertThat(read("src/m1/f1.txt")).isEqualTo("the user's edit\n");
    assertThat(project.resolve("src/m2/f2.txt")).doesNotExist();
  }

  @Test
  void aDirectoryMovedByOneCommandIsFollowedByTheNext() throws Exception {
    command(() -> write("a.txt", "warm\n"));
    assertThat(command(() -> Files.move(project.resolve("src/m5"), project.resolve("lib"))))
        .hasSize(40).contains("lib/f5.txt", "src/m5/f5.txt");
    assertThat(command(() -> write("lib/f15.txt", "edited under the new name\n"))).containsExactly("lib/f15.txt");
    tab.undo();
    assertThat(read("lib/f15.txt")).isEqualTo("file 15\n");
    tab.undo();
    assertThat(read("src/m5/f15.txt")).isEqualTo("file 15\n");
    assertThat(project.resolve("lib")).doesNotExist();
  }

  @Test
  void aDirectoryReplacedByAFileAndAFileByADirectoryAreRecordedWhole() throws Exception {
    command(() -> write("a.txt", "warm\n"));
    List<String> recorded = command(() -> {
      deleteTree(project.resolve("src/m6"));
      Files.writeString(project.resolve("src/m6"), "now a file\n");
      Files.delete(project.resolve("a.txt"));
      write("a.txt/inside.txt", "a directory now\n");
    });
    assertThat(recorded).hasSize(23).contains("src/m6", "src/m6/f6.txt", "a.txt", "a.txt/inside.txt");
    tab.undo();
    assertThat(read("a.txt")).isEqualTo("warm\n");
    assertThat(read("src/m6/f96.txt")).isEqualTo("file 96\n");
  }

  @Test
  void aNewTreeIsRecordedWholeAndWatchedFromThen() throws Exception {
    command(() -> write("a.txt", "warm\n"));
    assertThat(command(() -> {
      write("gen/a/b/c/one.txt", "1\n");
      write("gen/a/b/c/d/two.txt", "2\n");
    })).containsExactly("gen/a/b/c/d/two.txt", "gen/a/b/c/one.txt");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    assertThat(snapshot.examinedCount()).isZero();
    write("gen/a/b/c/d/two.txt", "changed\n");
    write("gen/a/b/c/d/e/three.txt", "3\n");
    assertThat(snapshot.recordChanges().recorded()).extracting(FileChange::path)
        .containsExactlyInAnyOrder("gen/a/b/c/d/two.txt", "gen/a/b/c/d/e/three.txt");
    turn.finish(CheckpointStatus.DONE);
  }

  @Test
  void anIgnoreFileACommandEditsRulesTheCommandsAfterIt() throws Exception {
    write(".gitignore", "*.log\n");
    command(() -> write("a.txt", "warm\n"));
    assertThat(command(() -> {
      write(".gitignore", "*.tmp\n");
      write("x.log", "not recorded: ignored at the start\n");
    })).containsExactly(".gitignore");
    assertThat(command(() -> {
      write("x.log", "recorded: no longer ignored\n");
      write("y.tmp", "ignored now\n");
    })).containsExactly("x.log");
  }

  @Test
  void whenTheNotificationsCannotBeTrustedTheWholeTreeIsWalked() throws Exception {
    command(() -> write("a.txt", "warm\n"));
    try (Stream<Path> found = Files.find(temp.resolve("home"), 4, (p, a) -> p.endsWith("watch-cookies"))) {
      deleteTree(found.findFirst().orElseThrow()); // the directory the watch syncs through: it cannot any more
    }
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    assertThat(snapshot.examinedCount()).isEqualTo(201);
    write("src/m7/f7.txt", "changed\n");
    assertThat(snapshot.recordChanges().recorded()).extracting(FileChange::path).containsExactly("src/m7/f7.txt");
    turn.finish(CheckpointStatus.DONE);
  }

  @Test
  void theScanTakenAheadMakesTheFirstCommandLookOnlyAtWhatChangedSince() throws Exception {
    store.changeTracker().prepare(MAX); // what prepareShellCapture runs in the background as Waymark opens
    write("src/m8/f8.txt", "edited after the scan ahead\n");
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(MAX);
    assertThat(snapshot.examinedCount()).isEqualTo(1);
    write("a.txt", "changed\n");
    assertThat(snapshot.recordChanges().recorded()).extracting(FileChange::path).containsExactly("a.txt");
    turn.finish(CheckpointStatus.DONE);
  }

  @Test
  void aStoreThatIsClosingTakesNoScanAhead() throws Exception {
    store.changeTracker().stopScanAhead(); // what closing the store does first, so that it never waits for one
    store.changeTracker().prepare(MAX);
    Turn turn = tab.begin();
    assertThat(turn.snapshotWorkTree(MAX).examinedCount()).isEqualTo(201);
    turn.finish(CheckpointStatus.DONE);
  }

  @Test
  void noScanIsTakenAheadWhileAKilledCommandWaitsToBeRecovered() throws Exception {
    Path journals = Files.createDirectories(store.changeTracker().journalDirectory());
    Files.writeString(journals.resolve("other-3-999999.json"), "{\"tab\":\"other\",\"checkpoint\":3,\"pid\":999999,"
        + "\"pidStart\":1,\"start\":1,\"cacheGeneration\":7}");
    store.changeTracker().prepare(MAX);
    Turn turn = tab.begin();
    assertThat(turn.snapshotWorkTree(MAX).examinedCount()).as("the first command scans itself").isEqualTo(201);
    turn.finish(CheckpointStatus.DONE);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
