package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.checkpoint.SlotHolder;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.JumpingTime;
import dev.waymark.core.testing.Running;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command waiting for the project's shell slot while another Waymark holds it, stopped by
 * Ctrl+Z or SIGSTOP: the wait counts against the command's timeout, names the process it waits
 * for and says it is stopped, and can be cancelled.
 */
@Tag("process")
class ShellSlotWaitTest {
  @TempDir Path temp;
  ToolFixture f;
  Process holder;

  @BeforeEach
  void open() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "process states are read from /proc");
    f = new ToolFixture(temp);
    holder = SlotHolder.start(f.store.shadowDirectory().getParent().resolve("shell.lock"));
    SlotHolder.signal(holder, "STOP");
  }

  @AfterEach
  void close() throws Exception {
    if (holder != null) {
      SlotHolder.signal(holder, "CONT");
      holder.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    if (f != null) {
      f.close();
    }
  }

  @Test
  void theWaitForAStoppedWaymarkEndsAtTheCommandsTimeoutAndNamesIt() {
    long start = System.nanoTime();
    ToolResult r = f.call("run_shell", "command", "echo never > n.txt", "timeout_ms", 2000);
    long tookMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("not run", "Waymark process " + holder.pid(), "stopped", "kill -CONT " + holder.pid(),
        "2000 ms");
    assertThat(tookMillis).as("the wait is the command's timeout, not forever").isLessThan(10_000);
    assertThat(f.exists("n.txt")).isFalse();
  }

  @Test
  void theWaitCanBeCancelledAndSaysWhomItWaitedFor() throws Exception {
    Running<ToolResult> waiting = Running.start("waiting", () -> f.shell("echo never > n.txt"))
        .awaitIn("CommandSlot.take");
    f.cancellation.cancel();
    ToolResult r = waiting.get(10);
    assertThat(r.content()).contains("Cancelled while waiting", "Waymark process " + holder.pid(), "stopped");
  }

  @Test
  void onceResumedAndEndedTheCommandRunsWithWhatIsLeftOfItsTimeout() throws Exception {
    JumpingTime time = new JumpingTime();
    RunShellTool tool = new RunShellTool(ToolSettings.DEFAULTS, time::nanos);
    Running<ToolResult> waiting = Running.start("waiting", () -> tool.run(
        ToolFixture.args("command", "echo ran > r.txt", "timeout_ms", 20_000), new ToolContext(f.project, f.turn,
            f.cancellation))).awaitIn("CommandSlot.take");
    // the tool reads the time as it starts waiting, then before each try: a third reading follows a try that found
    // the slot held and named its holder
    Eventually.until("the tool tried the slot once", () -> time.reads() >= 3);
    // a wait is said only from a second on (WAIT_WORTH_SAYING_MILLIS)
    time.jump(Duration.ofMillis(1_100));
    SlotHolder.signal(holder, "CONT");
    holder.destroy();
    ToolResult r = waiting.get(20);
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(r.content()).contains("waited", "Waymark process " + holder.pid());
    assertThat(f.read("r.txt")).isEqualTo("ran\n");
  }
}
