package dev.waymark.tui;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.virtual.DefaultVirtualTerminal;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.terminal.KeyMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one frame of the interface (lay out, paint, delta refresh onto a 160×48 virtual
 * terminal) with 10 and with 10,000 messages in the tab: the chat view lays out only what is
 * visible, so the two should cost about the same.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
public class FrameBench {
  private static final String ANSWER = String.join("\n",
      "## Plan", "", "I changed **two** files:", "", "- `src/Main.java`: the *entry point*", "- `README.md`", "",
      "```java", "class Main { public static void main(String[] a) { } }", "```", "", "Done.");

  @Param({"10", "10000"})
  int messages;

  private Path dir;
  private ShadowStore store;
  private Workspace workspace;
  private WaymarkUi ui;
  private int running;
  private int frames;
  private boolean viewing;

  @Setup(Level.Trial)
  public void open() throws Exception {
    dir = Files.createTempDirectory("waymark-frame-bench");
    Path project = Files.createDirectories(dir.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(dir.resolve("home")), RetentionPolicy.DEFAULT);
    TerminalScreen screen = new TerminalScreen(new DefaultVirtualTerminal(new TerminalSize(160, 48)));
    screen.startScreen();
    workspace = new Workspace(store, "bench", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(new ScriptedChatModel.Script(List.of())), Toolset.of(List.of()),
        new SessionSettings("bench", ApprovalMode.YOLO, true, null), memory));
    ui = new WaymarkUi(screen, Runnable::run, workspace,
        new WaymarkUi.Options("bench · model", "yolo", KeyMap.defaults(), Clock.systemDefaultZone()));
    ui.openTab();
    for (int n = 1; n <= messages / 2; n++) {
      finishedTurn(n);
    }
    running = messages / 2 + 1;
    ui.inject(new Event.TurnStarted(running, running - 1, "keep going"));
    ui.drawNow();
  }

  private void finishedTurn(int n) {
    ui.inject(new Event.TurnStarted(n, n - 1, "Prompt number " + n + ": change something in the project, please."));
    ui.inject(new Event.AssistantDelta(n, ANSWER));
    ui.inject(new Event.TurnFinished(n, TurnStatus.DONE, Optional.empty()));
  }

  /** A token arrives while a turn runs: the running answer grows, then a frame. */
  @Benchmark
  public void streamingFrame() throws Exception {
    if (++frames % 64 == 0) {
      // keep the running answer short, as real ones are: a new turn every 64 tokens
      ui.inject(new Event.TurnFinished(running, TurnStatus.DONE, Optional.empty()));
      running++;
      ui.inject(new Event.TurnStarted(running, running - 1, "keep going"));
    }
    ui.inject(new Event.AssistantDelta(running, "token "));
    ui.drawNow();
  }

  /** Ctrl+B / Ctrl+F: the view moves to the previous checkpoint and back, a frame each. */
  @Benchmark
  public void browsingFrame() throws Exception {
    viewing = !viewing;
    ui.inject(viewing ? new Event.ViewMoved(running - 1, false) : new Event.ViewMoved(running, true));
    ui.drawNow();
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    workspace.close();
    store.close();
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
