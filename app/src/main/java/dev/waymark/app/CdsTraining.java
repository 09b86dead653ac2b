package dev.waymark.app;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.virtual.DefaultVirtualTerminal;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.WaymarkUi;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The workload the class-data sharing archive is made from at package time
 * ({@code java -XX:ArchiveClassesAtExit=waymark.jsa -cp waymark.jar dev.waymark.app.CdsTraining DIR}):
 * what a start loads, so that the launcher's JVM maps those classes instead of loading them. A
 * headless turn, undo, redo, list and diff on a small project, then frames of the interface on a
 * virtual terminal. It writes only under {@code DIR}.
 */
public final class CdsTraining {
  private CdsTraining() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createDirectories(Path.of(args.length > 0 ? args[0] : "target/cds-training"));
    Path project = Files.createDirectories(dir.resolve("project"));
    for (int i = 0; i < 20; i++) {
      Files.writeString(project.resolve("file" + i + ".txt"), "line " + i + "\n");
    }
    Path script = dir.resolve("script.json");
    Files.writeString(script, "{\"responses\":[{\"toolCalls\":[{\"name\":\"write_file\",\"arguments\":"
        + "{\"path\":\"file1.txt\",\"content\":\"changed\\n\"}},{\"name\":\"run_shell\",\"arguments\":{\"command\":\"echo more >> file2.txt\"}}]},"
        + "{\"text\":\"Done **now**.\"},{\"text\":\"And again.\"}]}");
    WaymarkHome home = new WaymarkHome(Files.createDirectories(dir.resolve("home")));
    Logging.start(home);
    StringWriter sink = new StringWriter();
    PrintWriter out = new PrintWriter(sink);
    String p = project.toString();
    check(Main.run(new String[] {"exec", "-C", p, "--script", script.toString(), "--approval", "yolo", "change a file"}, home, out, out), sink);
    for (String[] command : new String[][] {{"checkpoints", "list", "-C", p}, {"checkpoints", "diff", "0", "-C", p},
        {"checkpoints", "undo", "-C", p}, {"checkpoints", "redo", "-C", p}, {"sessions", "list", "-C", p}, {"--version"}}) {
      check(Main.run(command, home, out, out), sink);
    }
    frames(project, home, script);
    System.exit(0); // the tab's threads are not waited for; the archive is written at exit
  }

  private static void check(int status, StringWriter output) {
    if (status != 0) {
      throw new IllegalStateException("a training command failed: " + output);
    }
  }

  /** A turn in the interface, drawn on a virtual terminal. */
  private static void frames(Path project, WaymarkHome home, Path script) throws Exception {
    DefaultVirtualTerminal terminal = new DefaultVirtualTerminal(new TerminalSize(120, 40));
    TerminalScreen screen = new TerminalScreen(terminal);
    screen.startScreen();
    try (ShadowStore store = ShadowStore.open(project, home, RetentionPolicy.DEFAULT)) {
      Workspace workspace = Workspaces.of(store, "scripted", () -> new ScriptedChatModel(script),
          Workspaces.settings("training", ApprovalMode.YOLO, true));
      WaymarkUi ui = new WaymarkUi(screen, Runnable::run, workspace,
          new WaymarkUi.Options("scripted · training", "yolo", KeyMap.defaults(), Clock.systemDefaultZone()));
      ui.openTab();
      for (char c : "a change 🚀".toCharArray()) {
        ui.post(new UiInput.Text(String.valueOf(c)));
      }
      ui.post(new UiInput.Key(new KeyStroke(KeyType.Enter)));
      long end = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < end && !screenText(terminal).contains("ready · #1")) {
        ui.step(50);
      }
      ui.post(new UiInput.Eof());
      ui.step(10);
      workspace.saveAndClose();
    }
  }

  private static String screenText(DefaultVirtualTerminal terminal) {
    StringBuilder b = new StringBuilder();
    for (int col = 0; col < terminal.getTerminalSize().getColumns(); col++) {
      b.append(terminal.getCharacter(col, terminal.getTerminalSize().getRows() - 1).getCharacterString());
    }
    return b.toString();
  }
}
