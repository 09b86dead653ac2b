package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log of who wrote what: no note is lost when it grows past its limit while others write to it. */
class WriteLogTest {
  private static List<FileChange> created(String path, int i) {
    return List.of(new FileChange(path, FileVersion.ABSENT, version(i)));
  }

  @TempDir Path temp;

  private static FileVersion version(int i) {
    return new FileVersion(FileKind.REGULAR, ObjectId.fromRaw(new byte[] {(byte) i, (byte) (i >> 8), 1, 2, 3, 4, 5, 6, 7, 8,
        9, 10, 11, 12, 13, 14, 15, 16, 17, 18}));
  }

  @Test
  void notesWrittenWhileTheLogIsCutShortAreAllKept() throws Exception {
    WriteLog log = new WriteLog(temp.resolve("writes.log"), 2 << 10);
    long now = System.currentTimeMillis();
    ExecutorService writers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        done.add(writers.submit(() -> {
          for (int i = 0; i < 400; i++) {
            log.append("tab" + writer, created("dir/file-" + writer + "-" + i + ".txt", i), now);
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      writers.shutdown();
    }
    // 1,600 notes of about 100 bytes: the log is cut short at nearly every note, and every one is still there
    assertThat(log.since(now)).hasSize(1_600);
    assertThat(log.since(now)).extracting(WriteLog.Write::path).doesNotHaveDuplicates();
  }

  @Test
  void aNoteAnotherProcessWritesWhileTheLogIsCutShortIsKept() throws Exception {
    Path file = temp.resolve("writes.log");
    WriteLog log = new WriteLog(file, 2 << 10);
    WriteLog otherProcess = new WriteLog(file, 2 << 10);
    long now = System.currentTimeMillis();
    for (int i = 0; i < 40; i++) {
      otherProcess.append("other", created("before" + i, i), now);
    }
    Thread[] racing = new Thread[1];
    log.beforeCompactionReplaces(() -> {
      if (racing[0] == null) {
        racing[0] = new Thread(() -> otherProcess.append("other", created("racing.txt", 1), now));
        racing[0].start();
        try {
          racing[0].join(300); // it is done at once, unless the log makes it wait for the cut
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    log.append("mine", created("mine.txt", 2), now);
    racing[0].join();
    assertThat(log.since(now)).extracting(WriteLog.Write::path).contains("racing.txt", "mine.txt", "before0");
  }

  @Test
  void notesOlderThanAnHourGoWhenTheLogPassesItsLimit() throws Exception {
    WriteLog log = new WriteLog(temp.resolve("writes.log"), 2 << 10);
    long hour = 3_600_000;
    for (int i = 0; i < 30; i++) {
      log.append("t", created("old" + i, i), 1_000 + i);
    }
    for (int i = 0; i < 30; i++) {
      log.append("t", created("new" + i, i), 2 * hour + i);
    }
    assertThat(log.since(0)).extracting(WriteLog.Write::path).allMatch(p -> p.startsWith("new")).hasSize(30);
  }

  @Test
  void eachWriteSaysWhatItReplacedAndALineOfAnOlderWaymarkSaysNothing() throws Exception {
    Path file = temp.resolve("writes.log");
    WriteLog log = new WriteLog(file);
    log.append("t", List.of(new FileChange("a.txt", version(1), version(2)),
        new FileChange("b.txt", version(3), FileVersion.ABSENT)), 5_000);
    Files.writeString(file, "5001\told\t" + version(4).blob().name() + "\t\"c.txt\"\n", StandardOpenOption.APPEND);

    var writes = log.since(0);

    assertThat(writes).hasSize(3);
    assertThat(writes.get(0).wrote(version(2))).isTrue();
    assertThat(writes.get(0).replaced(version(1))).isTrue();
    assertThat(writes.get(0).replaced(version(2))).isFalse();
    assertThat(writes.get(1).wrote(FileVersion.ABSENT)).isTrue();
    assertThat(writes.get(1).replaced(version(3))).isTrue();
    assertThat(writes.get(1).replaced(FileVersion.ABSENT)).isFalse();
    assertThat(writes.get(2).path()).isEqualTo("c.txt");
    assertThat(writes.get(2).wrote(version(4))).isTrue();
    assertThat(writes.get(2).prior()).as("not said").isNull();
    assertThat(writes.get(2).replaced(version(1))).isTrue();
  }
}
