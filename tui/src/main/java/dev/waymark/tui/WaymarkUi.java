package dev.waymark.tui;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.screen.Screen;
import com.googlecode.lanterna.screen.TerminalScreen;
import dev.waymark.core.Counted;
import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.context.FileIndex;
import dev.waymark.core.mcp.McpInput;
import dev.waymark.core.mcp.McpPrompt;
import dev.waymark.core.mcp.McpResource;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import dev.waymark.tui.command.CommandCatalog;
import dev.waymark.tui.command.CommandEntry;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.frame.Frame;
import dev.waymark.tui.frame.FrameLayout;
import dev.waymark.tui.frame.Layers;
import dev.waymark.tui.input.InputHistory;
import dev.waymark.tui.input.MentionFinder;
import dev.waymark.tui.keys.Host;
import dev.waymark.tui.keys.KeyRouter;
import dev.waymark.tui.run.Background;
import dev.waymark.tui.run.CommandRunner;
import dev.waymark.tui.run.Notifier;
import dev.waymark.tui.screen.ComparisonPanel;
import dev.waymark.tui.screen.HelpText;
import dev.waymark.tui.screen.Overlay;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.tab.Tabs;
import dev.waymark.tui.terminal.Clipboard;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Plurals;
import dev.waymark.tui.text.Tone;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The full-screen interface: the loop that owns all UI state and paces the frames. Key input and
 * every tab's session events arrive on one queue and are handled on the caller of {@link #run}:
 * keys go through the {@link KeyRouter}, events to their {@link TabController}, and a frame laid
 * out by {@link FrameLayout} is drawn at most about 30 times a second, only when something changed.
 */
public final class WaymarkUi implements Host {
  private static final Logger LOG = LoggerFactory.getLogger(WaymarkUi.class);
  private static final long FRAME_NANOS = TimeUnit.MILLISECONDS.toNanos(33);
  private static final String[] SPINNER = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  public static final int MIN_COLUMNS = FrameLayout.MIN_COLUMNS;
  public static final int MIN_ROWS = FrameLayout.MIN_ROWS;

  /**
   * What the footer names at the start (each tab then shows its own model and mode), the key
   * bindings, the clock, what /status, /model and Shift+Tab know of the run, the prompts kept as
   * files that run as {@code /name} ({@link CustomCommands#list()} gives the command menu their
   * names and descriptions), and the project's files for the {@code @} finder (null: no finder).
   */
  public record Options(String modelLabel, String approvalLabel, KeyMap keys, Clock clock, RunInfo run,
      CustomCommands customCommands, FileIndex files) {
    public Options(String modelLabel, String approvalLabel, KeyMap keys, Clock clock) {
      this(modelLabel, approvalLabel, keys, clock, RunInfo.of(modelLabel), CustomCommands.NONE, null);
    }

    public Options(String modelLabel, String approvalLabel, KeyMap keys, Clock clock, RunInfo run) {
      this(modelLabel, approvalLabel, keys, clock, run, CustomCommands.NONE, null);
    }

    public Options(String modelLabel, String approvalLabel, KeyMap keys, Clock clock, CustomCommands customCommands) {
      this(modelLabel, approvalLabel, keys, clock, RunInfo.of(modelLabel), customCommands, null);
    }
  }

  private record TabEvent(TabController tab, Event event) {}

  private record Wake() {}

  /** Work another thread hands the interface's ({@link #later}), or what work done in the background gives back. */
  private record Later(Runnable work) {}

  private record Notice(String text, Tone tone) {}

  /** An MCP server's prompts or resources may have changed. */
  private record McpListsChanged() {}

  /** A subagent of the tab {@code parent} works in {@code tab}: it goes beside its parent in the bar. */
  private record SubagentOpened(TabController tab, String parent) {}

  /** A listing of the project for the @ finder ended: the next frame shows its files. */
  private record FilesIndexed() {}

  /** What the MCP servers made of a message given to them, back on the interface's thread. */
  private record McpExpanded(TabController tab, String typed, McpInput.Expansion expansion) {}

  private static final String ASKING_MCP = "Asking the MCP server…";

  private final Screen screen;
  private final Consumer<Runnable> frameWrapper;
  private final Workspace workspace;
  private final Options options;
  private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private final Tabs tabs = new Tabs();
  private final CommandCatalog catalog = new CommandCatalog();
  private final Layers layers = new Layers(catalog);
  private final InputHistory history = new InputHistory();
  private final KeyRouter keys;
  private final Background background = new Background(this::later);
  private final CommandRunner commands;
  /** Null when no MCP server is configured. */
  private final McpInput mcpInput;
  /** Where messages wait for the MCP servers, off the interface's thread; made at the first such message. */
  private ExecutorService mcpAsker;
  private boolean quit;
  /** Whether the loop drew a frame yet: until it has, a frame waiting to be drawn does not wait for input. */
  private boolean framed;
  private boolean dirty = true;
  private long lastFrame;
  private int chatWidth = 80;
  private int chatHeight = 20;
  private boolean tooSmall; // as last drawn: keys other than quit and interrupt wait for a larger window
  private boolean bell = true;
  /** Null: no notifications (the setting "notifications": false, or no terminal to send them to). */
  private Notifier notifier;
  private volatile Clipboard clipboard;

  /**
   * @param frameWrapper runs each refresh, e.g. inside synchronized-output markers
   * @param workspace the project's tabs and their session, which it saves itself
   */
  public WaymarkUi(Screen screen, Consumer<Runnable> frameWrapper, Workspace workspace, Options options) {
    this.screen = screen;
    this.frameWrapper = frameWrapper;
    this.workspace = workspace;
    this.options = options;
    workspace.onNotice(note -> inbox.add(new Notice("! " + note, Tone.WARNING)));
    // a subagent's tab: made and followed on the thread that opened it, before its first event, then shown
    workspace.onTabOpened(opened -> opened.subagentOf().ifPresent(parent -> {
      TabController tab = new TabController(workspace, opened, options.clock());
      inbox.add(new SubagentOpened(tab, parent));
      opened.subscribe(event -> inbox.add(new TabEvent(tab, event)));
    }));
    this.keys = new KeyRouter(tabs, layers, options.keys(), options.clock(), history, this);
    this.commands = new CommandRunner(tabs, workspace, options.clock(), this, catalog, options.customCommands());
    // the user's own commands are in the / menu and the help beside the built-in ones
    // (read again as the menu opens, so a command file written while Waymark runs is there at once)
    catalog.poll("custom", () -> options.customCommands().list().stream()
        .map(c -> new CommandEntry("/" + c.name() + " [arguments]", c.description())).toList());
    McpServers mcp = workspace.mcp();
    mcpInput = mcp.isEmpty() ? null : new McpInput(mcp);
    if (mcpInput != null) {
      // the servers start in the background: their prompts join the menu as each is ready, and when one says they changed
      mcp.onListsChanged(() -> inbox.add(new McpListsChanged()));
      mcpListsChanged();
    }
    if (options.files() != null) {
      layers.mentions(new MentionFinder(options.files(),
          () -> mcp.resources().stream().map(McpResource::mention).toList()));
      options.files().onWalked(() -> inbox.add(new FilesIndexed()));
      // no walk at start: the project is listed when @ is first typed (the finder says "indexing…" meanwhile), so
      // a Waymark that only answers and runs sandboxed commands never lists the project's directories
    }
  }

  /** The commands of the menu and the help: other features add theirs here. */
  public CommandCatalog commands() {
    return catalog;
  }

  /** Whether the terminal bell rings once when a tool call starts waiting for approval (the setting {@code bell}). */
  public void bellOnApproval(boolean ring) {
    bell = ring;
  }

  /** Whether, and how, a turn's end or a waiting approval is told while the terminal is unfocused (null: never). */
  public void notifications(Notifier notifier) {
    this.notifier = notifier;
  }

  /** The clipboard {@code /copy} writes to: the terminal's, through OSC 52. */
  public void clipboard(Clipboard terminal) {
    this.clipboard = terminal;
  }

  @Override
  public Optional<Clipboard> clipboard() {
    return Optional.ofNullable(clipboard);
  }

  /** Where key input (from the terminal's reader thread) goes. Thread-safe. */
  public void post(UiInput input) {
    inbox.add(input);
  }

  /** Asks for a redraw from any thread, e.g. after a resize. */
  public void wake() {
    inbox.add(new Wake());
  }

  /**
   * Runs until the user quits, on the tabs already open (a loaded session) or on a new one; on the
   * way out the workspace closes every tab and saves the session.
   */
  public void run() throws IOException {
    try {
      if (tabs.isEmpty()) {
        openTab();
      }
      while (!quit) {
        step(tabs.anyRunning() ? 100 : 500);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      tabs.syncDrafts(workspace);
      try {
        workspace.saveAndClose(); // cancels a running turn and waits for its checkpoint first
      } catch (RuntimeException e) {
        LOG.warn("the last save of the session failed", e);
      }
    }
  }

  /**
   * Shows the tabs of a session the workspace brought back (before {@link #run}, or when /session
   * load replaces the open ones). Each tab's first event tells what it showed when it was saved
   * ({@link Event.TabRestored}); the session's notes follow it in the tab shown.
   */
  @Override
  public void showOpened(Workspace.Opened opened) {
    for (WorkspaceTab workspaceTab : opened.tabs()) {
      TabController tab = new TabController(workspace, workspaceTab, options.clock());
      tab.editor().setText(workspaceTab.input());
      workspaceTab.subscribe(event -> inbox.add(new TabEvent(tab, event)));
      tabs.add(tab, workspaceTab.closed(), false);
    }
    tabs.showFirst();
    for (int i = 0; i < tabs.size(); i++) {
      if (opened.activeTab().filter(tabs.get(i).tab().tabId()::equals).isPresent()) {
        tabs.activate(i); // the tab shown when the session was saved
      }
    }
    if (!tabs.isEmpty()) {
      int open = tabs.size();
      int closed = tabs.closed().size();
      inbox.add(new Notice("Session " + opened.label() + ": " + open + (open == 1 ? " tab" : " tabs")
          + (closed == 0 ? "." : ", " + closed + " closed (/tab lists them)."), Tone.MUTED));
      for (String note : opened.notes()) {
        inbox.add(new Notice("! " + note, Tone.WARNING));
      }
    }
    dirty = true;
  }

  /**
   * Handles whatever arrived within {@code waitMillis} (everything queued), then draws if due. The
   * first frame does not wait for input. For tests too.
   */
  public void step(long waitMillis) throws InterruptedException, IOException {
    Object item = inbox.poll(dirty && !framed ? 0 : waitMillis, TimeUnit.MILLISECONDS);
    int handled = 0;
    while (item != null && handled < 10_000) {
      handle(item);
      handled++;
      item = inbox.poll();
    }
    if (quit || tabs.isEmpty()) {
      return; // nothing more to draw: the caller restores the terminal
    }
    tabs.syncDrafts(workspace); // what the workspace's next save keeps of the inputs
    long now = System.nanoTime();
    if (tabs.anyRunning()) {
      dirty = true;
    }
    if (dirty && now - lastFrame >= FRAME_NANOS) {
      draw();
      lastFrame = now;
      dirty = false;
      framed = true;
    } else if (dirty) {
      // come back when the frame is due instead of waiting for the next input
      inbox.offer(new Wake());
      Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(FRAME_NANOS - (now - lastFrame))));
    }
  }

  public boolean finished() {
    return quit;
  }

  /** Notes from opening the store (a restore finished or rolled back), shown in the first tab. */
  public void startupNotices(List<String> notes) {
    startupNotices(notes, true);
  }

  /** Messages for the first tab's chat; {@code warning} ones stand out. */
  public void startupNotices(List<String> notes, boolean warning) {
    for (String note : notes) {
      inbox.add(warning ? new Notice("! " + note, Tone.WARNING) : new Notice(note, Tone.NORMAL));
    }
  }

  /** Folds an event into the active tab as if its session had sent it; for tests and benchmarks. */
  void inject(Event event) {
    onEvent(tabs.current(), event);
    dirty = true;
  }

  /** Paints and refreshes now, due or not; for tests and benchmarks. */
  void drawNow() throws IOException {
    draw();
    dirty = false;
  }

  @Override
  public void openIsolatedTab() {
    try {
      TabController tab = new TabController(workspace, workspace.newIsolatedTab(), options.clock());
      tab.tab().subscribe(event -> inbox.add(new TabEvent(tab, event)));
      tabs.add(tab, false, true);
      tab.state().notice(Tone.NORMAL, "Isolated tab: it works on a copy-on-write view of the project, which does not "
          + "change until you /land it (or /discard the view).");
    } catch (RuntimeException e) {
      tabs.current().state().notice(Tone.ERROR, "✗ " + e.getMessage());
    }
    dirty = true;
  }

  /** {@code waymark --resume} without an id: the interface opens on {@code /resume}'s list. */
  public void openResumeList() {
    runCommand(tabs.current(), "/resume");
  }

  /** Opens a new tab and makes it active. */
  @Override
  public void openTab() {
    try {
      TabController tab = new TabController(workspace, workspace.newTab(), options.clock());
      tab.tab().subscribe(event -> inbox.add(new TabEvent(tab, event)));
      tabs.add(tab, false, true);
    } catch (Exception e) {
      LOG.error("could not open a tab", e);
      if (tabs.isEmpty()) {
        throw new IllegalStateException("Could not open a tab: " + e.getMessage(), e);
      }
      tabs.current().state().notice(Tone.ERROR, "✗ Could not open a new tab: " + e.getMessage());
    }
    dirty = true;
  }

  // ------------------------------------------------------------------------------- events

  private void handle(Object item) {
    dirty = true;
    if (item instanceof TabEvent te) {
      onEvent(te.tab(), te.event());
    } else if (item instanceof UiInput.Focus focus) {
      if (notifier != null) {
        notifier.focused(focus.focused());
      }
    } else if (item instanceof UiInput input) {
      keys.route(input, tooSmall);
    } else if (item instanceof Notice notice && !tabs.isEmpty()) {
      tabs.current().state().notice(notice.tone(), notice.text());
    } else if (item instanceof SubagentOpened opened) {
      tabs.addBeside(opened.tab(), opened.parent());
    } else if (item instanceof McpListsChanged) {
      mcpListsChanged();
    } else if (item instanceof McpExpanded expanded) {
      mcpExpanded(expanded);
    } else if (item instanceof Later later) {
      later.work().run();
    }
  }

  @Override
  public void later(Runnable work) {
    inbox.add(new Later(work));
  }

  /** Each MCP server's prompts as {@code /SERVER:PROMPT} in the menu and the help, in place of those it had. */
  private void mcpListsChanged() {
    McpServers mcp = workspace.mcp();
    Map<String, List<CommandEntry>> byServer = new LinkedHashMap<>();
    mcp.status().forEach(server -> byServer.put(server.name(), new ArrayList<>()));
    for (McpPrompt prompt : mcp.prompts()) {
      String said = prompt.description().strip().lines().findFirst().orElse("");
      byServer.computeIfAbsent(prompt.server(), s -> new ArrayList<>()).add(new CommandEntry(prompt.usage(),
          said.isEmpty() ? "a prompt of MCP server " + prompt.server() : said + " (MCP server " + prompt.server() + ")"));
    }
    byServer.forEach((server, entries) -> catalog.replace("mcp:" + server, entries));
  }

  @Override
  public boolean sendThroughMcp(TabController tab, String text) {
    if (mcpInput == null || !mcpInput.concerns(text)) {
      return false;
    }
    layers.hint(ASKING_MCP);
    if (mcpAsker == null) {
      mcpAsker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "waymark-mcp-input");
        t.setDaemon(true);
        return t;
      });
    }
    mcpAsker.submit(() -> {
      McpInput.Expansion expansion;
      try {
        expansion = mcpInput.expand(text);
      } catch (RuntimeException e) {
        LOG.warn("an MCP prompt or resource could not be got", e);
        expansion = new McpInput.Expansion.Refused("The MCP server could not be asked: " + e + ". Nothing was sent.");
      }
      inbox.add(new McpExpanded(tab, text, expansion));
    });
    return true;
  }

  /** Sends what the servers made of a message, or says why not and gives the message back to the input. */
  private void mcpExpanded(McpExpanded expanded) {
    TabController tab = expanded.tab();
    if (layers.hint().equals(ASKING_MCP)) {
      layers.hint("");
    }
    if (!tabs.isOpen(tab)) {
      return; // closed meanwhile: the message is in the input's history
    }
    if (expanded.expansion() instanceof McpInput.Expansion.Refused refused) {
      boolean back = tab.editor().isEmpty();
      if (back) {
        tab.editor().setText(expanded.typed());
      }
      tab.state().notice(Tone.ERROR, "✗ " + refused.message() + (back ? " The message is back in the input."
          : " ↑ brings the message back."));
      return;
    }
    String text = expanded.typed();
    if (expanded.expansion() instanceof McpInput.Expansion.Ready ready) {
      ready.notes().forEach(tab.state()::noticeWithPrompt);
      text = ready.text();
    } else if (SlashCommand.isCommand(text)) {
      commands.run(tab, text.strip()); // the server it named is gone from the settings' list meanwhile: as typed
      return;
    }
    tab.sendOrSteer(text);
  }

  private void onEvent(TabController tab, Event event) {
    if (!tabs.isOpen(tab)) {
      if (tabs.isClosed(tab)) {
        tab.applyClosed(event);
      }
      return;
    }
    TabController.Reaction reaction = tab.apply(event, tab == tabs.current(), chatWidth, history);
    if (event instanceof Event.ToolCallProposed proposed && proposed.needsApproval()) {
      ringBell(); // once per call: a turn waits for the user, in whichever tab
      if (notifier != null) {
        notifier.notify(proposed.call().name() + " waits for your approval in tab " + tabs.number(tab) + ".", bell);
      }
    }
    if (event instanceof Event.TurnFinished finished) {
      if (notifier != null) {
        notifier.notify("Turn #" + finished.checkpoint() + " " + finished.status().name().toLowerCase(Locale.ROOT)
            + " in tab " + tabs.number(tab) + ".", false);
      }
    }
    if (reaction.turnEnded() && tab == tabs.current() && layers.hint().equals(KeyRouter.INTERRUPTING)) {
      layers.hint(""); // the chat now says "Interrupted."
    }
    if (!reaction.hint().isEmpty()) {
      layers.hint(reaction.hint());
    }
    reaction.diff().ifPresent(this::showDiff);
    if (tab == tabs.current()) {
      tab.state().takeComparisonToShow().ifPresent(view -> showComparison(tab, view));
    }
    reaction.branchRefused().ifPresent(refused -> layers.ask(new Layers.Confirm("Branch from #" + refused.from()
        + " anyway, overwriting " + String.join(", ", refused.result().conflicts())
        + " (what they hold now is kept under a rescued tag)? [y/N]", () -> tab.forceBranch(refused),
        options.clock().instant())));
  }

  // ------------------------------------------------------------------ what keys and commands ask

  @Override
  public void runCommand(TabController tab, String line) {
    if (sendThroughMcp(tab, line)) {
      return; // an MCP server's prompt, chosen in the menu
    }
    commands.run(tab, line);
  }

  @Override
  public <T> void inBackground(Callable<T> work, BiConsumer<T, Exception> then) {
    background.run(work, then);
  }

  @Override
  public void pick(Picker picker) {
    layers.pick(picker);
  }

  @Override
  public RunInfo runInfo() {
    return options.run();
  }

  @Override
  public void quit() {
    quit = true;
  }

  @Override
  public int backgroundProcesses() {
    return workspace.backgroundProcesses();
  }

  @Override
  public int chatWidth() {
    return chatWidth;
  }

  @Override
  public int chatHeight() {
    return chatHeight;
  }

  @Override
  public void requestClose(TabController tab) {
    String kept = tabs.size() == 1 ? " Closing the last tab quits; --continue brings it back. [y/N]"
        : " It stays in the session: /tab reopen brings it back. [y/N]";
    List<TabController> working = tabs.open().stream().filter(t -> t.state().running()
        && t.tab().subagentOf().equals(Optional.of(tab.tab().tabId()))).toList();
    if (!working.isEmpty()) { // closing interrupts the parent's turn, which stops its subagents
      layers.ask(new Layers.Confirm("Subagents of this tab still work (tab" + (working.size() == 1 ? " " : "s ")
          + String.join(", ", working.stream().map(t -> String.valueOf(tabs.number(t))).toList()) + "). Close it and "
          + "stop them? Their tabs stay, with what they did. [y/N]", () -> {
        working.forEach(TabController::cancel);
        close(tab);
      }));
    } else if (tab.state().running()) {
      layers.ask(new Layers.Confirm("A turn is running in this tab. Close it anyway?" + kept, () -> close(tab)));
    } else if (tab.state().checkpoints().size() > 1 || !tab.editor().isEmpty()) {
      layers.ask(new Layers.Confirm("Close tab " + tabs.number(tab) + " ("
          + Counted.of(tab.state().checkpoints().size() - 1, "checkpoint") + ")?" + kept, () -> close(tab)));
    } else {
      close(tab);
    }
  }

  @Override
  public void requestQuit() {
    for (TabController tab : tabs.open()) {
      if (tab.state().pendingApproval().isPresent()) {
        layers.ask(new Layers.Confirm("A tool call waits for your approval in tab " + tabs.number(tab) + ". Quit anyway? "
            + "It is saved with the session, and waymark --continue proposes it again. [y/N]", this::quit));
        return;
      }
    }
    int running = backgroundProcesses();
    if (running > 0) {
      layers.ask(new Layers.Confirm(Plurals.backgroundProcesses(running) + " that a shell command started "
          + (running == 1 ? "is" : "are") + " still running. Quitting stops "
          + (running == 1 ? "it" : "them") + ", and what " + (running == 1 ? "it" : "they")
          + " changed is recorded. Quit anyway? [y/N]", this::quit));
      return;
    }
    quit();
  }

  /**
   * Closes a tab: a running turn is interrupted, and the tab stays in the session (its tags too)
   * to be reopened. Closing the last tab quits, with the tab kept open.
   */
  private void close(TabController tab) {
    if (tabs.size() == 1) {
      quit();
      return;
    }
    if (tab.state().running()) {
      tab.cancel();
    }
    tabs.close(tab);
    workspace.close(tab.tab());
  }

  @Override
  public void showHelp() {
    catalog.refresh();
    layers.show(new Overlay("Help", width -> HelpText.render(options.keys(), catalog.entries(), width)));
  }

  @Override
  public void showPanel(String title, IntFunction<List<Line>> layout) {
    layers.show(new Overlay(title, layout));
  }

  /** The /rewind list: the live path's prompts, newest first; Enter goes back to before the chosen one. */
  @Override
  public void openRewind(TabController tab) {
    List<Picker.Choice> choices = new ArrayList<>();
    for (var p : tab.state().livePathPrompts()) {
      String prompt = p.prompt().strip().lines().findFirst().orElse("");
      String shown = prompt.isEmpty() && !p.done().isEmpty() ? p.done().lines().findFirst().orElse("") : "› " + prompt;
      choices.add(new Picker.Choice("#" + p.checkpoint() + "  " + shown, "back to #" + p.before(), p.before()));
    }
    if (choices.isEmpty()) {
      tab.state().notice(Tone.MUTED, "Nothing to rewind: no prompt yet on this branch.");
      return;
    }
    layers.pick(new Picker("Rewind: go back to before a prompt (files and conversation; it comes back in the input)", choices, 0,
        chosen -> runCommand(tab, "/undo " + chosen.value())));
  }

  private void showDiff(DiffView diff) {
    int files = diff.files().size();
    layers.show(new Overlay((diff.view() ? "Diff: what a land would change (the view against the project)"
        : "Diff: disk against #" + diff.checkpoint()) + " · " + files + (files == 1 ? " file" : " files"),
        width -> DiffLines.render(diff.unified(), width)));
  }

  /** The diff of two checkpoints, walked by hunk and file; a hunk or file is taken only after a yes. */
  private void showComparison(TabController tab, ComparisonView view) {
    layers.show(new ComparisonPanel(view, this::named, take -> layers.ask(new Layers.Confirm("Take "
        + (take.hunk() < 0 ? take.path() : "hunk " + (take.hunk() + 1) + " of " + take.path()) + " as "
        + named(take.toSide() ? view.to() : view.from()) + " holds it into the project, merged with later edits, as a new "
        + "checkpoint? [y/N]", () -> tab.run(List.of(new Command.Take(view.from(), view.to(),
            take.path(), take.hunk(), take.toSide(), false)))))).overlay());
  }

  /** A checkpoint of another tab as the bar shows that tab: by its place and title, which a raw id is not. */
  private String named(CheckpointRef ref) {
    return tabs.open().stream().filter(t -> !ref.tab().isEmpty() && t.tab().tabId().equals(ref.tab())).findFirst()
        .map(t -> "tab " + tabs.number(t) + " (" + (t.tab().title().isBlank() ? "new tab" : t.tab().title()) + ") "
            + new CheckpointRef("", ref.checkpoint()))
        .orElse(ref.toString());
  }

  private void ringBell() {
    if (bell && screen instanceof TerminalScreen terminalScreen) {
      try {
        terminalScreen.getTerminal().bell();
      } catch (IOException e) {
        LOG.debug("the bell could not ring", e);
      }
    }
  }

  // ------------------------------------------------------------------------------ drawing

  private void draw() throws IOException {
    TerminalSize resized = screen.doResizeIfNecessary();
    Frame frame = layout(screen.getTerminalSize());
    frame.paint(screen.newTextGraphics());
    screen.setCursorPosition(frame.cursor().orElse(null));
    frameWrapper.accept(() -> {
      try {
        screen.refresh(resized != null ? Screen.RefreshType.COMPLETE : Screen.RefreshType.DELTA);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** The footer's model and mode: the shown tab's own, as Shift+Tab, /mode and /model left them. */
  private FrameLayout.Labels labels() {
    if (tabs.isEmpty()) {
      return new FrameLayout.Labels(options.modelLabel(), options.approvalLabel());
    }
    String provider = options.run().provider();
    String model = tabs.current().model();
    return new FrameLayout.Labels(provider.isEmpty() || provider.equals(model) ? model : provider + " · " + model,
        tabs.current().mode().label(), options.run().sandboxed());
  }

  /** Lays out the frame for {@code size} and keeps the chat's size for scrolling; no terminal I/O. */
  Frame layout(TerminalSize size) {
    String spinner = SPINNER[(int) Math.floorMod(options.clock().millis() / 100, (long) SPINNER.length)]; // a fixed clock: a fixed frame
    Frame frame = FrameLayout.layout(tabs, layers, labels(), size, spinner, options.clock().instant());
    tooSmall = frame.tooSmall();
    if (!tooSmall) {
      chatWidth = frame.chatWidth();
      chatHeight = frame.chatHeight();
    }
    return frame;
  }
}
