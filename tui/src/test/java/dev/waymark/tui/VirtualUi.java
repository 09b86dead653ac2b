package dev.waymark.tui;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.virtual.DefaultVirtualTerminal;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.context.FileIndex;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.keys.KeyRouter;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.function.Predicate;

/**
 * The whole interface on a virtual terminal over a real project, store and workspace, driven by a
 * scripted model ({@code '} for {@code "} in the script) and read back as text.
 */
final class VirtualUi implements AutoCloseable {
  /** How far {@link #readIt} moved the interface's clock ahead of the system's. */
  private volatile Duration ahead = Duration.ZERO;

  /** The interface's clock: the system's, moved forward by {@link #readIt}. */
  private final Clock clock = new Clock() {
    @Override
    public ZoneId getZone() {
      return ZoneId.systemDefault();
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(ahead);
    }
  };

  final Path project;
  final ShadowStore store;
  final Workspace workspace;
  final DefaultVirtualTerminal terminal;
  final WaymarkUi ui;

  VirtualUi(Path temp, int columns, int rows, ApprovalMode approval, String script) throws Exception {
    this(temp, columns, rows, approval, script, null, null);
  }

  /** With the MCP servers {@code mcp} (null: none) and the {@code @} finder over {@code files} (null: none). */
  VirtualUi(Path temp, int columns, int rows, ApprovalMode approval, String script,
      McpServers mcp, FileIndex files) throws Exception {
    this(temp, columns, rows, approval, script, mcp, files, CustomCommands.NONE);
  }

  /** With custom commands too. */
  VirtualUi(Path temp, int columns, int rows, ApprovalMode approval, String script,
      McpServers mcp, FileIndex files,
      CustomCommands custom) throws Exception {
    this(temp, columns, rows, approval, script, mcp, files, custom, Hooks.NONE);
  }

  /** With hooks, which the first tab runs already. */
  VirtualUi(Path temp, int columns, int rows, ApprovalMode approval, String script,
      McpServers mcp, FileIndex files,
      CustomCommands custom, Hooks hooks) throws Exception {
    this(temp, columns, rows, approval, script, mcp, files, custom, hooks, RunInfo.of("scripted · test-model"));
  }

  /** With what /status and /model know of the run too. */
  VirtualUi(Path temp, int columns, int rows, ApprovalMode approval, String script,
      McpServers mcp, FileIndex files,
      CustomCommands custom, Hooks hooks,
      RunInfo run) throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    terminal = new DefaultVirtualTerminal(new TerminalSize(columns, rows));
    TerminalScreen screen = new TerminalScreen(terminal);
    screen.startScreen();
    ScriptedChatModel.Script parsed = ScriptedChatModel.parse(script.replace('\'', '"'), "test script");
    workspace = new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project, new ScriptedChatModel(parsed),
        Toolset.of(Tools.standard().all()), new SessionSettings("test-model", approval, true, null), memory));
    if (mcp != null) {
      workspace.mcp(mcp);
    }
    workspace.hooks(hooks);
    ui = new WaymarkUi(screen, Runnable::run, workspace,
        new WaymarkUi.Options("scripted · test-model", approval.name().toLowerCase(), KeyMap.defaults(), clock,
            run, custom, files));
    ui.openTab();
    ui.drawNow();
  }

  /**
   * As long as a question that came up by itself is shown before a typed key answers it (a person
   * reads it first): the interface's clock moves on by that, no time passes.
   */
  void readIt() {
    ahead = ahead.plus(KeyRouter.APPROVAL_READING_TIME).plusMillis(100);
  }

  /** The screen as text, one line per row, wide characters once. */
  String screen() {
    StringBuilder b = new StringBuilder();
    TerminalSize size = terminal.getTerminalSize();
    for (int row = 0; row < size.getRows(); row++) {
      for (int col = 0; col < size.getColumns(); col++) {
        var c = terminal.getCharacter(col, row);
        b.append(c.getCharacterString());
        if (c.isDoubleWidth()) {
          col++;
        }
      }
      b.append('\n');
    }
    return b.toString();
  }

  String waitFor(Predicate<String> condition, String what) throws Exception {
    long end = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < end) {
      ui.step(20);
      String s = screen();
      if (condition.test(s)) {
        return s;
      }
    }
    throw new AssertionError("timed out waiting for " + what + "; the screen was:\n" + screen());
  }

  String waitFor(String text) throws Exception {
    return waitFor(s -> s.contains(text), "\"" + text + "\"");
  }

  /** The text of the input box: the rows below the last rule. */
  String input() {
    List<String> rows = screen().lines().toList();
    for (int r = rows.size() - 1; r > 0; r--) {
      if (rows.get(r - 1).startsWith("────")) {
        return rows.get(r).strip();
      }
    }
    return "";
  }

  void type(String text) {
    text.codePoints().forEach(cp -> ui.post(new UiInput.Text(new String(Character.toChars(cp)))));
  }

  void key(KeyType type) {
    ui.post(new UiInput.Key(new KeyStroke(type)));
  }

  void ctrl(char c) {
    ui.post(new UiInput.Key(new KeyStroke(c, true, false)));
  }

  void send(String text) {
    type(text);
    key(KeyType.Enter);
  }

  @Override
  public void close() throws Exception {
    ui.post(new UiInput.Eof());
    ui.step(10);
    workspace.close();
    store.close();
  }
}
