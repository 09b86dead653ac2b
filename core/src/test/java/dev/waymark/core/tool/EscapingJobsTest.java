package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background jobs that clear their environment ({@code env -i}) are still found as the command's:
 * by the session the command was started in, not only by a variable they can drop.
 */
@Tag("process")
class EscapingJobsTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "processes are found through /proc");
    f = new ToolFixture(temp);
  }

  @AfterEach
  void close() {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void aJobStartedWithAnEmptyEnvironmentIsFollowedAndItsWritesRecorded() throws Exception {
    ToolResult r = f.shell("env -i /bin/sh -c 'sleep 1; echo late > late.txt' > /dev/null 2>&1 &");

    assertThat(r.content()).contains("background process(es) still running");
    Eventually.until("the job has written and ended", () -> f.exists("late.txt") && f.read("late.txt").equals("late\n")
        && Processes.running("echo late > late.txt").isEmpty());
    f.finish();
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("late.txt");
  }

  @Test
  void aJobStartedWithAnEmptyEnvironmentIsStoppedWhenWaymarkCloses() throws Exception {
    f.shell("env -i /bin/sh -c 'sleep 2.03; echo late > late.txt' > /dev/null 2>&1 &");
    Path late = f.file("late.txt");

    f.close();
    f = null;
    Processes.awaitNone("sleep 2.03"); // stopped, or ended: either way it writes nothing after this

    assertThat(late).as("nothing it would do happens outside a checkpoint").doesNotExist();
  }
}
