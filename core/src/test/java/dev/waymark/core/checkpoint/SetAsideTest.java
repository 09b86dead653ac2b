package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.FileRestore;
import dev.waymark.core.checkpoint.restore.FileStamp;
import dev.waymark.core.checkpoint.restore.SetAside;
import dev.waymark.core.testing.Eventually;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A redo right after an undo moves back the very files the undo took away (a rename, not a
 * create, which file systems make slow right after many deletes), and never puts back anything
 * but the recorded content.
 */
class SetAsideTest {
  @TempDir Path temp;
  StoreFixture fx;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    fx = new StoreFixture(temp);
    tab = fx.store.openTab("aside");
  }

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void aRedoRightAfterAnUndoMovesBackTheFilesTheUndoTookAwayWithAFreshTime() throws Exception {
    fx.turn(tab, "gen/a.txt", "a\n", "gen/b.txt", "b\n");
    Object inodeA = key("gen/a.txt");
    Files.setLastModifiedTime(fx.file("gen/a.txt"), FileTime.fromMillis(1_000_000_000_000L));
    Object oldA = key("gen/a.txt");
    assertThat(oldA).isEqualTo(inodeA);

    assertThat(tab.undo().applied()).isTrue();
    assertThat(fx.exists("gen/a.txt")).isFalse();
    assertThat(fx.exists("gen")).isFalse();
    assertThat(keptFiles()).hasSize(2);

    long beforeRedo = System.currentTimeMillis() - 1000;
    assertThat(tab.redo().applied()).isTrue();
    assertThat(fx.read("gen/a.txt")).isEqualTo("a\n");
    assertThat(fx.read("gen/b.txt")).isEqualTo("b\n");
    assertThat(key("gen/a.txt")).isEqualTo(inodeA);
    // build tools compare times: a file that comes back is as new as any write would make it
    assertThat(Files.getLastModifiedTime(fx.file("gen/a.txt")).toMillis()).isGreaterThanOrEqualTo(beforeRedo);
    assertThat(keptFiles()).isEmpty();
  }

  @Test
  void filesARestoreRewroteComeBackAsTheVeryFilesTheyWere() throws Exception {
    fx.writeExternally("src/a.txt", "before\n");
    Object original = key("src/a.txt");
    fx.turn(tab, "src/a.txt", "after\n");
    Object agents = key("src/a.txt");

    assertThat(tab.undo().applied()).isTrue();
    assertThat(fx.read("src/a.txt")).isEqualTo("before\n");
    assertThat(tab.redo().applied()).isTrue();
    assertThat(fx.read("src/a.txt")).isEqualTo("after\n");
    assertThat(key("src/a.txt")).as("the redo put back the file the undo replaced").isEqualTo(agents);
    assertThat(tab.undo().applied()).isTrue();
    assertThat(fx.read("src/a.txt")).isEqualTo("before\n");
    assertThat(key("src/a.txt")).as("and the undo the file the redo replaced").isNotEqualTo(original);
    assertThat(tab.redo().applied()).isTrue();
    assertThat(key("src/a.txt")).isEqualTo(agents);
  }

  @Test
  void aLargeUndoThatMeetsAFileChangedUnderItPutsBackEveryFileItHadTakenAway() throws Exception {
    int count = FileRestore.PARALLEL_WRITES + 44; // removed on every core
    Turn turn = tab.begin();
    for (int i = 0; i < count; i++) {
      fx.write(turn, "many/f" + i + ".txt", "agent's " + i + "\n");
    }
    turn.finish(CheckpointStatus.DONE);
    AtomicReference<String> edited = new AtomicReference<>();
    fx.store.onRestoreWrite(path -> {
      if (edited.compareAndSet(null, path)) {
        try {
          Files.writeString(fx.file(path), "the user's edit, longer than the agent's\n", UTF_8);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });

    assertThat(tab.undo().applied()).isFalse();

    for (int i = 0; i < count; i++) {
      String path = "many/f" + i + ".txt";
      assertThat(fx.read(path)).isEqualTo(path.equals(edited.get()) ? "the user's edit, longer than the agent's\n"
          : "agent's " + i + "\n");
    }
    assertThat(tab.live()).isEqualTo(1);
  }

  @Test
  void aKeptFileThatAnotherNameStillSharesIsNeverPutBackWhichWouldJoinTwoPaths() throws Exception {
    try (SetAside aside = SetAside.open(fx.home.resolve("unit"))) {
      Path file = fx.file("p.txt");
      Files.writeString(file, "shared\n", UTF_8);
      Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000_000L));
      FileVersion holds = new FileVersion(FileKind.REGULAR, fx.store.repo().hash(file, Files.size(file)), 0644);
      // kept for a replacement that then failed: p.txt is still there, the same file
      assertThat(aside.keepReplaced(file, holds, FileStamp.of(file), System.currentTimeMillis(), fx.store.repo()))
          .isEqualTo(SetAside.Taken.KEPT);

      Path other = fx.file("q.txt");
      assertThat(aside.putIn(other, holds)).isFalse();
      assertThat(other).doesNotExist();
      Files.writeString(file, "edited later\n", UTF_8);
      assertThat(aside.size()).isZero();
    }
  }

  @Test
  void aKeptFileThatWasChangedIsNotPutBackTheRecordedContentIsWrittenInstead() throws Exception {
    fx.turn(tab, "a.txt", "recorded\n");
    tab.undo();
    List<Path> kept = keptFiles();
    assertThat(kept).hasSize(1);
    Files.writeString(kept.get(0), "tampered with\n", UTF_8);

    assertThat(tab.redo().applied()).isTrue();
    assertThat(fx.read("a.txt")).isEqualTo("recorded\n");
  }

  @Test
  void anExecutableComesBackExecutableAndAFileOfAnotherModeGetsTheRecordedMode() throws Exception {
    fx.writeExternally("run.sh", "#!/bin/sh\n");
    Files.setPosixFilePermissions(fx.file("run.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Turn turn = tab.begin();
    fx.delete(turn, "run.sh");
    turn.finish(CheckpointStatus.DONE);
    tab.undo();
    assertThat(Files.isExecutable(fx.file("run.sh"))).isTrue();
    tab.redo();
    assertThat(fx.exists("run.sh")).isFalse();
    tab.undo();
    assertThat(Files.isExecutable(fx.file("run.sh"))).isTrue();
    assertThat(fx.read("run.sh")).isEqualTo("#!/bin/sh\n");
  }

  @Test
  void whatAnEarlierRestoreKeptIsDeletedOnceAnotherRestoreChangesFilesAndAllAtClose() throws Exception {
    fx.turn(tab, "one.txt", "1\n");
    fx.turn(tab, "two.txt", "2\n");
    tab.undo();
    assertThat(keptFiles()).hasSize(1);
    tab.undo();
    eventually(() -> keptFiles().size() == 1); // two.txt's is dropped, one.txt's kept
    Path storeAside = fx.home.resolve("projects");
    fx.store.close();
    try (Stream<Path> all = Files.walk(storeAside)) {
      assertThat(all.filter(p -> p.toString().contains("/set-aside/aside-"))).isEmpty();
    }
  }

  @Test
  void aFileChangedBetweenTheChecksAndTheMoveOrTheLinkIsNotKeptAndStopsTheRestore() throws Exception {
    Path dir = fx.home.resolve("unit");
    try (SetAside aside = SetAside.open(dir)) {
      Path file = fx.file("f.txt");
      Files.writeString(file, "checked\n", UTF_8);
      Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000_000L));
      FileStamp checked = FileStamp.of(file);
      FileVersion holds = new FileVersion(FileKind.REGULAR, fx.store.repo().hash(file, Files.size(file)), 0644);
      Files.writeString(file, "someone's later edit\n", UTF_8);

      assertThat(aside.takeOut(file, holds, checked, System.currentTimeMillis(), fx.store.repo()))
          .isEqualTo(SetAside.Taken.CHANGED);
      assertThat(Files.readString(file, UTF_8)).isEqualTo("someone's later edit\n");
      // nor is it kept when the restore was about to write over it
      assertThat(aside.keepReplaced(file, holds, checked, System.currentTimeMillis(), fx.store.repo()))
          .isEqualTo(SetAside.Taken.CHANGED);
      assertThat(aside.size()).isZero();
      try (Stream<Path> files = Files.walk(dir)) {
        assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString())).containsExactly("held.lock");
      }
    }
  }

  @Test
  void aSameSizeRewriteInTheSameTickIsToldByItsBytes() throws Exception {
    Path dir = fx.home.resolve("unit");
    try (SetAside aside = SetAside.open(dir)) {
      Path file = fx.file("f.txt");
      Files.writeString(file, "aaaa\n", UTF_8);
      FileVersion holds = new FileVersion(FileKind.REGULAR, fx.store.repo().hash(file, Files.size(file)), 0644);
      FileTime time = Files.getLastModifiedTime(file);
      FileStamp checked = FileStamp.of(file);
      Files.writeString(file, "bbbb\n", UTF_8);
      Files.setLastModifiedTime(file, time); // the stamp the check took, as a coarse clock would leave it

      assertThat(aside.takeOut(file, holds, checked, System.currentTimeMillis(), fx.store.repo()))
          .isEqualTo(SetAside.Taken.CHANGED);
      assertThat(Files.readString(file, UTF_8)).isEqualTo("bbbb\n");
    }
  }

  @Test
  void beyondItsLimitsOfBytesAndFilesNothingIsKeptAndTheCallerDeletes() throws Exception {
    try (SetAside bytes = SetAside.open(fx.home.resolve("unit"), 4, 10);
        SetAside files = SetAside.open(fx.home.resolve("unit"), 1 << 20, 1)) {
      Path big = fx.file("big.txt");
      Files.writeString(big, "more than four bytes\n", UTF_8);
      assertThat(bytes.takeOut(big, version(big), FileStamp.of(big), 0, fx.store.repo())).isEqualTo(SetAside.Taken.NOT_KEPT);
      assertThat(big).exists();

      Path one = fx.file("one.txt");
      Path two = fx.file("two.txt");
      Files.writeString(one, "1\n", UTF_8);
      Files.writeString(two, "2\n", UTF_8);
      assertThat(files.takeOut(one, version(one), FileStamp.of(one), 0, fx.store.repo())).isEqualTo(SetAside.Taken.KEPT);
      assertThat(files.takeOut(two, version(two), FileStamp.of(two), 0, fx.store.repo())).isEqualTo(SetAside.Taken.NOT_KEPT);
      assertThat(two).exists();
    }
  }

  private FileVersion version(Path file) throws IOException {
    return new FileVersion(FileKind.REGULAR, fx.store.repo().hash(file, Files.size(file)), 0644);
  }


  @Test
  void whatAStoreThatDiedLeftIsDeletedWhenTheNextOpensAndALivingOrJustMadeOneIsNot() throws Exception {
    Path parent = fx.home.resolve("unit");
    Path left = Files.createDirectories(parent.resolve("aside-left"));
    Files.writeString(left.resolve("held.lock"), "");
    Files.writeString(left.resolve("1"), "a removed file\n");
    FileTime minutesAgo = FileTime.fromMillis(System.currentTimeMillis() - 300_000);
    try (SetAside living = SetAside.open(parent)) {
      Path opening = Files.createDirectories(parent.resolve("aside-opening")); // made, not locked yet
      try (Stream<Path> dirs = Files.list(parent)) {
        for (Path dir : dirs.filter(d -> !d.equals(opening)).toList()) {
          Files.setLastModifiedTime(dir, minutesAgo);
        }
      }
      try (SetAside next = SetAside.open(parent)) {
        eventually(() -> !Files.exists(left));
        Eventually.until("the sweeps are done", () -> !sweeping());
        try (Stream<Path> dirs = Files.list(parent)) {
          assertThat(dirs.count()).as("the living store's, the next one's and the one being made").isEqualTo(3);
        }
      }
    }
  }


  @Test
  void whereTheStoreIsOnAnotherFileSystemAnUndoDeletesAndARedoWritesAsBefore() throws Exception {
    Path shm = Path.of("/dev/shm");
    Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm)
        && !Files.getFileStore(shm).equals(Files.getFileStore(temp)), "a second file system to keep the store on");
    Path home = Files.createTempDirectory(shm, "waymark-aside-test-");
    try (ShadowStore store = ShadowStore.open(fx.project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      fx.writeExternally("near.txt", "near before\n");
      CheckpointTree other = store.openTab("elsewhere");
      Turn turn = other.begin();
      for (String name : List.of("far.txt", "near.txt")) {
        FileState before = turn.read(name);
        Files.writeString(fx.file(name), name + " after\n", UTF_8);
        turn.recordFromDisk(name, before);
      }
      turn.finish(CheckpointStatus.DONE);

      assertThat(other.undo().applied()).isTrue();
      assertThat(fx.exists("far.txt")).isFalse();
      assertThat(fx.read("near.txt")).isEqualTo("near before\n");
      assertThat(other.redo().applied()).isTrue();
      assertThat(fx.read("far.txt")).isEqualTo("far.txt after\n");
      assertThat(fx.read("near.txt")).isEqualTo("near.txt after\n");
    } finally {
      try (Stream<Path> all = Files.walk(home)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private Object key(String path) throws IOException {
    return Files.readAttributes(fx.file(path), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
  }

  private List<Path> keptFiles() throws IOException {
    try (Stream<Path> all = Files.walk(fx.home)) {
      return all.filter(p -> p.getParent().getFileName().toString().startsWith("aside-"))
          .filter(p -> p.getParent().getParent().getFileName().toString().equals("set-aside"))
          .filter(p -> !p.getFileName().toString().equals("held.lock")).toList();
    }
  }

  private static void eventually(Eventually.Condition check) {
    Eventually.until("the set-aside files to be dropped", Duration.ofSeconds(10), check);
  }

  /** Whether a set-aside sweep (a thread each SetAside.open starts) is still running. */
  private static boolean sweeping() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().equals("waymark-aside-sweep"));
  }
}
