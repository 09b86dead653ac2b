package dev.waymark.tui.keys;

import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.terminal.Clipboard;
import dev.waymark.tui.text.Line;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

/** What keys and commands ask of the interface around them: tabs opened and closed, quitting, panels. */
public interface Host {
  void openTab();

  /** {@code /tab isolated}: opens a new isolated tab, or says why it cannot. */
  void openIsolatedTab();

  /** Shows the tabs of a session the workspace brought back, in place of any shown. */
  void showOpened(Workspace.Opened opened);

  /** Ctrl+W on an empty input: closes the tab, asking first when it runs a turn or has history. */
  void requestClose(TabController tab);

  /** Ctrl+D and /quit: asks first while a tool call waits for approval. */
  void requestQuit();

  void quit();

  /** How many processes shell commands left running: quitting stops them. */
  int backgroundProcesses();

  void showHelp();

  /** Shows a scrollable panel over the chat, laid out for the width it is drawn at. */
  void showPanel(String title, IntFunction<List<Line>> layout);

  /** The /rewind list of the tab's prompts. */
  void openRewind(TabController tab);

  /** Shows a list to pick from over the chat (e.g. /model's). */
  void pick(Picker picker);

  /** What the application knows of the run: provider, server, models, sandbox, prices. */
  RunInfo runInfo();

  /** The clipboard {@code /copy} writes to, where the terminal can be told; empty without one. */
  default Optional<Clipboard> clipboard() {
    return Optional.empty();
  }

  /** Runs a line starting with {@code /}. */
  void runCommand(TabController tab, String line);

  /**
   * Takes a message that runs an MCP server's prompt ({@code /SERVER:PROMPT}) or attaches one of its
   * resources ({@code @SERVER:URI}): it is sent once the servers answered, or given back to the input
   * with the reason. False when the message uses no MCP server.
   */
  boolean sendThroughMcp(TabController tab, String text);

  /**
   * Runs {@code work} on the interface's thread, from any thread (a bisect reports from its own); a
   * host without a thread of its own runs it at once.
   */
  default void later(Runnable work) {
    work.run();
  }

  /** The chat's width and height in the last frame, for scrolling by a page. */
  int chatWidth();

  int chatHeight();

  /** Runs {@code work} off the interface's thread; {@code then} gets its result (or null and what it threw) back on it. */
  <T> void inBackground(Callable<T> work, BiConsumer<T, Exception> then);
}
