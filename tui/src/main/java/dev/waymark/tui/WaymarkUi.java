package dev.waymark.tui;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.screen.Screen;
import dev.waymark.core.agent.ProtocolViews;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.Event;
import dev.waymark.tui.command.CommandRunner;
import dev.waymark.tui.frame.Frame;
import dev.waymark.tui.frame.FrameLayout;
import dev.waymark.tui.frame.Layers;
import dev.waymark.tui.input.InputHistory;
import dev.waymark.tui.keys.Host;
import dev.waymark.tui.keys.KeyRouter;
import dev.waymark.tui.screen.HelpText;
import dev.waymark.tui.screen.Overlay;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.tab.SessionSaver;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.tab.Tabs;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Tone;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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

  /** Opens the session behind a new tab; the application wires store, model and tools. */
  public interface TabOpener {
    TabSession open() throws Exception;
  }

  /** What the footer names, the key bindings, and the clock. */
  public record Options(String modelLabel, String approvalLabel, KeyMap keys, Clock clock) {}

  private record TabEvent(TabController tab, Event event) {}

  private record Wake() {}

  private record Notice(String text, boolean warning) {}

  private final Screen screen;
  private final Consumer<Runnable> frameWrapper;
  private final TabOpener opener;
  private final Options options;
  private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private final Tabs tabs = new Tabs();
  private final Layers layers = new Layers();
  private final InputHistory history = new InputHistory();
  private final SessionSaver saver;
  private final KeyRouter keys;
  private final CommandRunner commands;
  private boolean quit;
  /** Whether the loop drew a frame yet: until it has, a frame waiting to be drawn does not wait for input. */
  private boolean framed;
  private boolean dirty = true;
  private long lastFrame;
  private int chatWidth = 80;
  private int chatHeight = 20;
  private boolean tooSmall; // as last drawn: keys other than quit and interrupt wait for a larger window

  /**
   * @param frameWrapper runs each refresh, e.g. inside synchronized-output markers
   */
  public WaymarkUi(Screen screen, Consumer<Runnable> frameWrapper, TabOpener opener, Options options) {
    this(screen, frameWrapper, opener, options, SessionControl.NONE);
  }

  public WaymarkUi(Screen screen, Consumer<Runnable> frameWrapper, TabOpener opener, Options options,
      SessionControl sessions) {
    this.screen = screen;
    this.frameWrapper = frameWrapper;
    this.opener = opener;
    this.options = options;
    this.saver = new SessionSaver(sessions, tabs, failure -> inbox.add(new Notice(failure, true)));
    this.keys = new KeyRouter(tabs, layers, options.keys(), options.clock(), history, saver, this);
    this.commands = new CommandRunner(tabs, saver, options.clock(), this);
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
   * Runs until the user quits, on the tabs already open (a loaded session) or on a new one; saves
   * the session and closes every tab's session on the way out.
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
      List<TabController> all = new ArrayList<>(tabs.open());
      all.addAll(tabs.closed());
      for (TabController tab : all) {
        tab.session().close(); // cancels a running turn and waits for its checkpoint
      }
      try {
        saver.save(null, true);
      } catch (RuntimeException e) {
        LOG.warn("the last save of the session failed", e);
      } finally {
        saver.shutdown();
      }
    }
  }

  /** Opens the tabs of a loaded session (before {@link #run}, or when /session load replaces the open ones). */
  @Override
  public void openLoaded(SessionControl.Loaded loaded) {
    for (SessionControl.LoadedTab loadedTab : loaded.tabs()) {
      TabSession session = loadedTab.session();
      TabController tab = new TabController(session, options.clock());
      var tree = session.checkpoints();
      tab.state().replay(tree.checkpoints(), session.memory().messages(), tree.live(), tree.livePath());
      tab.editor().setText(loadedTab.input() == null ? "" : loadedTab.input());
      var waiting = session.memory().pending().get(tree.live());
      if (waiting != null) {
        tab.state().proposeAgain(tree.live(), ProtocolViews.toolCall(waiting)); // Waymark quit while it waited: asked again
      }
      session.subscribe(event -> inbox.add(new TabEvent(tab, event)));
      tabs.add(tab, loadedTab.closed(), false);
    }
    tabs.showFirst();
    for (int i = 0; i < tabs.size(); i++) {
      if (tabs.get(i).session().checkpoints().tabId().equals(loaded.activeTab())) {
        tabs.activate(i); // the tab shown when the session was saved
      }
    }
    if (!tabs.isEmpty()) {
      int open = tabs.size();
      int closed = tabs.closed().size();
      tabs.current().state().notice(Tone.MUTED, "Session " + loaded.name() + ": " + open + (open == 1 ? " tab" : " tabs")
          + (closed == 0 ? "." : ", " + closed + " closed (/tab lists them)."));
      for (String note : loaded.notes()) {
        tabs.current().state().notice(Tone.WARNING, "! " + note);
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
    saver.saveIfChanged();
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
      inbox.add(new Notice(note, warning));
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

  /** Opens a new tab and makes it active. */
  @Override
  public void openTab() {
    try {
      TabController tab = new TabController(opener.open(), options.clock());
      tab.session().subscribe(event -> inbox.add(new TabEvent(tab, event)));
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
    } else if (item instanceof UiInput input) {
      keys.route(input, tooSmall);
    } else if (item instanceof Notice notice && !tabs.isEmpty()) {
      tabs.current().state().notice(notice.warning() ? Tone.WARNING : Tone.NORMAL,
          notice.warning() ? "! " + notice.text() : notice.text());
    }
  }

  private void onEvent(TabController tab, Event event) {
    if (!tabs.isOpen(tab)) {
      if (tabs.isClosed(tab) && tab.applyClosed(event)) {
        saver.changed();
      }
      return;
    }
    TabController.Reaction reaction = tab.apply(event, tab == tabs.current(), chatWidth, history);
    if (reaction.sessionChanged()) {
      saver.changed();
    }
    if (reaction.turnEnded() && tab == tabs.current() && layers.hint().equals(KeyRouter.INTERRUPTING)) {
      layers.hint(""); // the chat now says "Interrupted."
    }
    if (!reaction.hint().isEmpty()) {
      layers.hint(reaction.hint());
    }
    reaction.diff().ifPresent(this::showDiff);
  }

  // ------------------------------------------------------------------ what keys and commands ask

  @Override
  public void runCommand(TabController tab, String line) {
    commands.run(tab, line);
  }

  @Override
  public void quit() {
    quit = true;
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
    if (tab.state().running()) {
      layers.ask(new Layers.Confirm("A turn is running in this tab. Close it anyway?" + kept, () -> close(tab)));
    } else if (tab.state().checkpoints().size() > 1 || !tab.editor().isEmpty()) {
      layers.ask(new Layers.Confirm("Close tab " + tabs.number(tab) + " (" + (tab.state().checkpoints().size() - 1)
          + " checkpoints)?" + kept, () -> close(tab)));
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
    saver.changed();
  }

  @Override
  public void showHelp() {
    layers.show(new Overlay("Help", width -> HelpText.render(options.keys(), width)));
  }

  /** The /rewind list: the live path's prompts, newest first; Enter goes back to before the chosen one. */
  @Override
  public void openRewind(TabController tab) {
    List<Picker.Choice> choices = new ArrayList<>();
    for (var p : tab.state().livePathPrompts()) {
      String prompt = p.prompt().strip().lines().findFirst().orElse("");
      choices.add(new Picker.Choice("#" + p.checkpoint() + "  › " + prompt, "back to #" + p.before(), p.before()));
    }
    if (choices.isEmpty()) {
      tab.state().notice(Tone.MUTED, "Nothing to rewind: no prompt yet on this branch.");
      return;
    }
    layers.pick(new Picker("Rewind: go back to before a prompt (files and conversation; it comes back in the input)", choices, 0));
  }

  private void showDiff(DiffView diff) {
    int files = diff.files().size();
    layers.show(new Overlay("Diff: disk against #" + diff.checkpoint() + " · " + files + (files == 1 ? " file" : " files"),
        width -> DiffLines.render(diff.unified(), width)));
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

  /** Lays out the frame for {@code size} and keeps the chat's size for scrolling; no terminal I/O. */
  Frame layout(TerminalSize size) {
    String spinner = SPINNER[(int) Math.floorMod(options.clock().millis() / 100, (long) SPINNER.length)]; // a fixed clock: a fixed frame
    Frame frame = FrameLayout.layout(tabs, layers, new FrameLayout.Labels(options.modelLabel(), options.approvalLabel()), size,
        spinner, options.clock().instant());
    tooSmall = frame.tooSmall();
    if (!tooSmall) {
      chatWidth = frame.chatWidth();
      chatHeight = frame.chatHeight();
    }
    return frame;
  }
}
