package dev.waymark.core.checkpoint.project;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileStat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A walker given threads of its own scans on them, not on the process's, and their owner stops them. */
class CaptureThreadsTest {
  @TempDir Path project;

  @Test
  void aWalkerScansOnTheThreadsItIsGivenAndTheirCloseStopsThem() throws Exception {
    for (String dir : List.of("a/b", "c/d", "e")) {
      Files.createDirectories(project.resolve(dir));
      Files.writeString(project.resolve(dir).resolve("f.txt"), dir);
    }
    CaptureThreads threads = new CaptureThreads();
    Set<String> entries = ConcurrentHashMap.newKeySet();
    Set<ForkJoinPool> pools = ConcurrentHashMap.newKeySet();
    try (threads) {
      ProjectWalker walker = new ProjectWalker(project, List.of(), IgnoreContext.NONE, threads);
      assertThat(walker.threads()).isSameAs(threads);
      walker.scan(IgnoreRules.recording(), new StatVisitor() {
        @Override
        public void entry(String path, FileStat stat) {
          entries.add(path);
        }

        @Override
        public void excluded(String path, FileStat stat, Exclusion why) {}

        @Override
        public void entering(String dir) {
          ForkJoinPool pool = ForkJoinTask.getPool();
          if (pool != null) {
            pools.add(pool);
          }
        }
      });
    }
    assertThat(entries).containsExactlyInAnyOrder("a/b/f.txt", "c/d/f.txt", "e/f.txt");
    assertThat(pools).containsExactly(threads.walkers());
    assertThat(threads.walkers().isShutdown()).isTrue();
    assertThat(threads.registrars().isShutdown()).isTrue();
    assertThat(new ProjectWalker(project).threads()).isSameAs(CaptureThreads.PROCESS);
  }
}
