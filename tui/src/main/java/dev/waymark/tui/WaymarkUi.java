package dev.waymark.tui;

import com.googlecode.lanterna.TerminalPosition;
import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.graphics.TextGraphics;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import com.googlecode.lanterna.screen.Screen;
import dev.waymark.core.agent.Command;
import dev.waymark.core.agent.Event;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.CheckpointDiff;
import dev.waymark.tui.chat.ChatView;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.input.InputEditor;
import dev.waymark.tui.input.InputHistory;
import dev.waymark.tui.input.InputLayout;
import dev.waymark.tui.screen.Footer;
import dev.waymark.tui.screen.HelpText;
import dev.waymark.tui.screen.Overlay;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.screen.Rail;
import dev.waymark.tui.screen.TabBar;
import dev.waymark.tui.terminal.Action;
import dev.waymark.tui.terminal.KeyChord;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Painter;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The full-screen interface: tabs of sessions, each folded from its events into a {@link TabState}
 * and drawn on a Lanterna {@link Screen}. One thread (the caller of {@link #run}) owns all UI state:
 * key input and session events arrive on a queue, and frames are drawn at most about 30 times a
 * second, only when something changed.
 */
public final class WaymarkUi {
  private static final Logger LOG = LoggerFactory.getLogger(WaymarkUi.class);
  private static final long FRAME_NANOS = TimeUnit.MILLISECONDS.toNanos(33);
  private static final String[] SPINNER = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  public static final int MIN_COLUMNS = 60;
  public static final int MIN_ROWS = 15;
  private static final int MAX_INPUT_ROWS = 8;
  private static final Duration SECOND_CTRL_C = Duration.ofSeconds(2);
  private static final Duration SECOND_ESC = Duration.ofMillis(800);
  private static final String INTERRUPTING = "Interrupting…";
  private static final DateTimeFormatter SAVE_NAME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  /** Opens the session behind a new tab; the application wires store, model and tools. */
  public interface TabOpener {
    TabSession open() throws Exception;
  }

  /** What the footer names, the key bindings, and the clock. */
  public record Options(String modelLabel, String approvalLabel, KeyMap keys, Clock clock) {}

  /** One open tab: its session, what it shows, its own draft and scroll position. */
  private static final class Tab {
    final TabSession session;
    final TabState state;
    final ChatView.Scroll scroll = new ChatView.Scroll();
    final InputEditor editor = new InputEditor();

    Tab(TabSession session, Clock clock) {
      this.session = session;
      this.state = new TabState(session.checkpoints().tabId(), clock);
    }
  }

  private record TabEvent(Tab tab, Event event) {}

  private record Wake() {}

  /** A yes/no question drawn over the chat; {@code yes} runs on y or Y only, anything else answers no. */
  private record Confirm(String question, Runnable yes) {}

  private record Notice(String text, boolean warning) {}

  private final Screen screen;
  private final Consumer<Runnable> frameWrapper;
  private final TabOpener opener;
  private final Options options;
  private final SessionControl sessions;
  private final java.util.concurrent.ExecutorService saver = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "waymark-session-saver");
    t.setDaemon(true);
    return t;
  });
  private boolean sessionChanged;
  private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private final List<Tab> tabs = new ArrayList<>();
  private final InputHistory history = new InputHistory();
  private int active;
  private Overlay overlay;
  private Picker rewind;
  private Instant lastEsc = Instant.EPOCH;
  private Confirm confirming;
  private final List<Tab> closedTabs = new ArrayList<>();
  private Instant lastCtrlC = Instant.EPOCH;
  private String hint = "";
  private boolean quit;
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
    this.sessions = sessions;
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
        step(animating() ? 100 : 500);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (Tab tab : tabs) {
        tab.session.close(); // cancels a running turn and waits for its checkpoint
      }
      for (Tab tab : closedTabs) {
        tab.session.close();
      }
      try {
        saveSession(null, true);
      } catch (RuntimeException e) {
        LOG.warn("the last save of the session failed", e);
      } finally {
        saver.shutdown();
      }
    }
  }

  /** Opens the tabs of a loaded session (before {@link #run}, or when /session load replaces the open ones). */
  public void openLoaded(SessionControl.Loaded loaded) {
    for (SessionControl.LoadedTab loadedTab : loaded.tabs()) {
      TabSession session = loadedTab.session();
      Tab tab = new Tab(session, options.clock());
      var tree = session.checkpoints();
      tab.state.replay(tree.checkpoints(), session.memory().messages(), tree.live(), tree.livePath());
      tab.editor.setText(loadedTab.input() == null ? "" : loadedTab.input());
      var waiting = session.memory().pending().get(tree.live());
      if (waiting != null) {
        tab.state.proposeAgain(tree.live(), waiting); // Waymark quit while it waited: asked again
      }
      session.subscribe(event -> inbox.add(new TabEvent(tab, event)));
      (loadedTab.closed() ? closedTabs : tabs).add(tab);
    }
    active = 0;
    if (!tabs.isEmpty()) {
      current().state.notice(Tone.MUTED, "Session " + loaded.name() + ": " + tabs.size() + (tabs.size() == 1 ? " tab" : " tabs")
          + (closedTabs.isEmpty() ? "." : ", " + closedTabs.size() + " closed (/tab lists them)."));
      for (String note : loaded.notes()) {
        current().state.notice(Tone.WARNING, "! " + note);
      }
    }
    dirty = true;
  }

  /** Handles whatever arrived within {@code waitMillis} (everything queued), then draws if due. For tests too. */
  public void step(long waitMillis) throws InterruptedException, IOException {
    Object item = inbox.poll(waitMillis, TimeUnit.MILLISECONDS);
    int handled = 0;
    while (item != null && handled < 10_000) {
      handle(item);
      handled++;
      item = inbox.poll();
    }
    if (quit || tabs.isEmpty()) {
      return; // nothing more to draw: the caller restores the terminal
    }
    if (sessionChanged) {
      saveSession(null, false);
    }
    long now = System.nanoTime();
    if (animating()) {
      dirty = true;
    }
    if (dirty && now - lastFrame >= FRAME_NANOS) {
      draw();
      lastFrame = now;
      dirty = false;
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
    onEvent(current(), event);
    dirty = true;
  }

  /** Paints and refreshes now, due or not; for tests and benchmarks. */
  void drawNow() throws IOException {
    draw();
    dirty = false;
  }

  /** Opens a new tab and makes it active. */
  public void openTab() {
    try {
      TabSession session = opener.open();
      Tab tab = new Tab(session, options.clock());
      session.subscribe(event -> inbox.add(new TabEvent(tab, event)));
      tabs.add(tab);
      active = tabs.size() - 1;
    } catch (Exception e) {
      LOG.error("could not open a tab", e);
      if (tabs.isEmpty()) {
        throw new IllegalStateException("Could not open a tab: " + e.getMessage(), e);
      }
      current().state.notice(Tone.ERROR, "✗ Could not open a new tab: " + e.getMessage());
    }
    dirty = true;
  }

  private Tab current() {
    return tabs.get(active);
  }

  private boolean animating() {
    for (Tab tab : tabs) {
      if (tab.state.running()) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------------------- events

  private void handle(Object item) {
    dirty = true;
    if (item instanceof TabEvent te) {
      onEvent(te.tab(), te.event());
    } else if (item instanceof UiInput input) {
      onInput(input);
    } else if (item instanceof Notice notice && !tabs.isEmpty()) {
      current().state.notice(notice.warning() ? Tone.WARNING : Tone.NORMAL, notice.warning() ? "! " + notice.text() : notice.text());
    }
  }

  private void onEvent(Tab tab, Event event) {
    if (!tabs.contains(tab)) {
      if (closedTabs.contains(tab)) {
        tab.state.apply(event, false); // a closed tab's turn still ends; reopened, it shows how
        sessionChanged |= event instanceof Event.TurnFinished || event instanceof Event.CheckpointCreated;
      }
      return;
    }
    boolean isActive = tab == current();
    tab.state.apply(event, isActive);
    // A turn's start too: its prompt is then saved, and a crash mid-turn leaves a session to continue.
    if (event instanceof Event.TurnStarted || event instanceof Event.CheckpointCreated || event instanceof Event.CheckpointRestored
        || event instanceof Event.CheckpointSaved || event instanceof Event.TurnFinished) {
      sessionChanged = true;
    }
    if (event instanceof Event.ViewMoved) {
      ChatView.showViewed(tab.state, tab.scroll, chatWidth);
    } else if (event instanceof Event.TurnStarted) {
      tab.scroll.follow();
    } else if (event instanceof Event.TurnFinished) {
      if (isActive && hint.equals(INTERRUPTING)) {
        hint = ""; // the chat now says "Interrupted."
      }
      if (tab.state.viewed().isPresent()) {
        // viewed while it ran: back to live, so the next message does not branch by surprise
        tab.session.submit(Command.View.live());
      }
    } else if (event instanceof Event.CheckpointRestored) {
      tab.scroll.follow();
      tab.state.takeDraftToRestore().ifPresent(draft -> {
        if (tab.editor.isEmpty()) {
          tab.editor.refill(draft);
          if (isActive) {
            hint = "The prompt of the undone turn is back: type to replace it, or move the cursor to edit it.";
          }
        } else {
          history.add(draft); // typed over during the restore: what was typed stays, the prompt is one ↑ away
          if (isActive) {
            hint = "Your typing stays; ↑ brings back the undone prompt.";
          }
        }
      });
    }
    tab.state.takeDiffToShow().ifPresent(diff -> {
      if (isActive) {
        showDiff(diff);
      } else {
        tab.state.notice(Tone.MUTED, "A diff of #" + diff.checkpoint() + " is ready: /checkpoint diff " + diff.checkpoint());
      }
    });
  }

  private void showDiff(CheckpointDiff diff) {
    int files = diff.files().size();
    overlay = new Overlay("Diff: disk against #" + diff.checkpoint() + " · " + files + (files == 1 ? " file" : " files"),
        width -> DiffLines.render(diff.unified(), width));
  }

  // -------------------------------------------------------------------------------- input

  private void onInput(UiInput input) {
    if (input instanceof UiInput.Eof) {
      quit = true;
      return;
    }
    if (input instanceof UiInput.Paste paste) {
      if (overlay == null && rewind == null && confirming == null) {
        current().editor.insert(paste.text());
      }
      return;
    }
    if (tooSmall && !(input instanceof UiInput.Key key && quitsOrInterrupts(key.stroke()))) {
      return; // the input is not on screen: typing blind could send a prompt nobody read
    }
    if (input instanceof UiInput.Text text) {
      onText(text.text());
      return;
    }
    if (input instanceof UiInput.Key key) {
      onKey(key.stroke());
    }
  }

  private boolean quitsOrInterrupts(KeyStroke stroke) {
    Optional<Action> action = options.keys().actionFor(stroke);
    return action.isPresent() && (action.get() == Action.CLEAR_OR_EXIT || action.get() == Action.EXIT_IF_EMPTY
        || action.get() == Action.INTERRUPT);
  }

  private void onText(String text) {
    if (confirming != null) {
      answer(text);
      return;
    }
    if (overlay != null || rewind != null) {
      if (text.equals("q")) {
        overlay = null;
        rewind = null;
      }
      return;
    }
    Tab tab = current();
    Optional<TabState.PendingApproval> pending = tab.state.pendingApproval();
    if (pending.isPresent() && tab.editor.isEmpty()) {
      switch (text) {
        case "y" -> approve(tab, pending.get(), false);
        case "a" -> approve(tab, pending.get(), true);
        case "n" -> deny(tab, pending.get());
        default -> tab.editor.insert(text);
      }
      return;
    }
    tab.editor.insert(text);
  }

  private void onKey(KeyStroke stroke) {
    hint = "";
    if (confirming != null) {
      answer(""); // [y/N]: Enter, Esc and every other key take the default shown, no
      return;
    }
    Optional<Action> action = options.keys().actionFor(stroke);
    if (overlay != null) {
      onOverlayKey(stroke, action);
      return;
    }
    if (rewind != null) {
      onRewindKey(stroke, action);
      return;
    }
    if (action.isPresent() && perform(action.get())) {
      return;
    }
    editKey(stroke);
  }

  private void onOverlayKey(KeyStroke stroke, Optional<Action> action) {
    int page = Math.max(1, chatHeight - 2);
    switch (stroke.getKeyType()) {
      case Escape -> overlay = null;
      case ArrowUp -> overlay.scroll(-1, page);
      case ArrowDown -> overlay.scroll(1, page);
      case PageUp -> overlay.scroll(-page, page);
      case PageDown -> overlay.scroll(page, page);
      case Home -> overlay.scrollTo(0, page);
      case End -> overlay.scrollTo(Integer.MAX_VALUE / 2, page);
      default -> {
        if (action.isPresent() && (action.get() == Action.CLEAR_OR_EXIT || action.get() == Action.HELP)) {
          overlay = null;
        }
      }
    }
  }

  private void onRewindKey(KeyStroke stroke, Optional<Action> action) {
    switch (stroke.getKeyType()) {
      case Escape -> rewind = null;
      case ArrowUp -> rewind.move(-1);
      case ArrowDown -> rewind.move(1);
      case PageUp -> rewind.move(-Math.max(1, chatHeight - 2));
      case PageDown -> rewind.move(Math.max(1, chatHeight - 2));
      case Enter -> {
        int before = rewind.chosen().value();
        rewind = null;
        runCommand(current(), "/undo " + before);
      }
      default -> {
        if (action.isPresent() && action.get() == Action.CLEAR_OR_EXIT) {
          rewind = null;
        }
      }
    }
  }

  /** The /rewind list: the live path's prompts, newest first; Enter goes back to before the chosen one. */
  private void openRewind(Tab tab) {
    List<Picker.Choice> choices = new ArrayList<>();
    for (TabState.PathPrompt p : tab.state.livePathPrompts()) {
      String prompt = p.prompt().strip().lines().findFirst().orElse("");
      choices.add(new Picker.Choice("#" + p.checkpoint() + "  › " + prompt, "back to #" + p.before(), p.before()));
    }
    if (choices.isEmpty()) {
      tab.state.notice(Tone.MUTED, "Nothing to rewind: no prompt yet on this branch.");
      return;
    }
    rewind = new Picker("Rewind: go back to before a prompt (files and conversation; it comes back in the input)", choices, 0);
  }

  /** Runs a bound action; false when the key should go to the input instead. */
  private boolean perform(Action action) {
    Tab tab = current();
    switch (action) {
      case NEW_TAB -> openTab();
      case CLOSE_TAB -> requestClose(tab);
      case NEXT_TAB -> activate((active + 1) % tabs.size());
      case PREVIOUS_TAB -> activate((active + tabs.size() - 1) % tabs.size());
      case TAB_1, TAB_2, TAB_3, TAB_4, TAB_5, TAB_6, TAB_7, TAB_8, TAB_9 -> {
        int index = action.ordinal() - Action.TAB_1.ordinal();
        if (index < tabs.size()) {
          activate(index);
        }
      }
      case VIEW_BACK -> tab.session.submit(Command.View.back());
      case VIEW_FORWARD -> tab.session.submit(Command.View.forward());
      case INTERRUPT -> interrupt(tab);
      case SUBMIT -> submit(tab);
      case NEWLINE -> tab.editor.insert("\n");
      case CLEAR_OR_EXIT -> clearOrExit(tab);
      case EXIT_IF_EMPTY -> {
        if (!tab.editor.isEmpty()) {
          return false;
        }
        requestQuit();
      }
      case HISTORY_PREVIOUS -> {
        if (!tab.editor.isOnFirstRow()) {
          return false;
        }
        history.previous(tab.editor.text()).ifPresent(tab.editor::setText);
      }
      case HISTORY_NEXT -> {
        if (!tab.editor.isOnLastRow()) {
          return false;
        }
        history.next().ifPresent(tab.editor::setText);
      }
      case COMPLETE -> {
        String text = tab.editor.text();
        if (!SlashCommand.isCommand(text) || text.contains("\n")) {
          return false;
        }
        String completed = SlashCommand.complete(text);
        if (completed.equals(text)) {
          List<String> options = SlashCommand.completions(text);
          hint = options.isEmpty() ? "" : String.join("  ", options);
        } else {
          tab.editor.setText(completed);
        }
      }
      case SCROLL_UP -> ChatView.scrollUp(tab.state, tab.scroll, chatWidth, chatHeight, Math.max(1, chatHeight / 2));
      case SCROLL_DOWN -> ChatView.scrollDown(tab.state, tab.scroll, chatWidth, Math.max(1, chatHeight / 2));
      case EXPAND -> tab.state.toggleExpanded();
      case HELP -> showHelp();
      default -> {
        return false;
      }
    }
    return true;
  }

  private void editKey(KeyStroke stroke) {
    InputEditor editor = current().editor;
    if (stroke.getKeyType() == KeyType.Character && stroke.isCtrlDown()) {
      switch (Character.toLowerCase(stroke.getCharacter())) {
        case 'a' -> editor.home();
        case 'e' -> editor.end();
        case 'k' -> editor.killToEnd();
        case 'u' -> editor.killToStart();
        default -> { }
      }
      return;
    }
    if (stroke.getKeyType() == KeyType.Character && stroke.isAltDown()) {
      switch (Character.toLowerCase(stroke.getCharacter())) {
        case 'b' -> editor.wordLeft();
        case 'f' -> editor.wordRight();
        default -> { }
      }
      return;
    }
    switch (stroke.getKeyType()) {
      case Character -> editor.insert(String.valueOf(stroke.getCharacter()));
      case Backspace -> {
        if (stroke.isAltDown()) {
          editor.deleteWordBack();
        } else {
          editor.backspace();
        }
      }
      case Delete -> editor.delete();
      case ArrowLeft -> editor.left();
      case ArrowRight -> editor.right();
      case ArrowUp -> editor.up();
      case ArrowDown -> editor.down();
      case Home -> editor.home();
      case End -> editor.end();
      default -> { }
    }
  }

  private void activate(int index) {
    active = index;
    current().state.seen();
  }

  private void interrupt(Tab tab) {
    Optional<TabState.PendingApproval> pending = tab.state.pendingApproval();
    if (pending.isPresent()) {
      deny(tab, pending.get());
    } else if (tab.state.running()) {
      tab.session.submit(new Command.Cancel());
      hint = INTERRUPTING;
    } else if (tab.state.viewed().isPresent()) {
      tab.session.submit(Command.View.live());
    } else if (tab.editor.isEmpty()) {
      // Esc Esc on an idle, empty input: the rewind list, as in Claude Code
      Instant now = options.clock().instant();
      if (Duration.between(lastEsc, now).compareTo(SECOND_ESC) <= 0) {
        lastEsc = Instant.EPOCH;
        openRewind(tab);
      } else {
        lastEsc = now;
      }
    }
  }

  private void clearOrExit(Tab tab) {
    Instant now = options.clock().instant();
    if (!tab.editor.isEmpty()) {
      tab.editor.clear();
      lastCtrlC = Instant.EPOCH;
      return;
    }
    if (tab.state.running()) {
      // as in other coding agents: Ctrl+C stops the turn; only an idle tab arms the exit
      tab.session.submit(new Command.Cancel());
      hint = INTERRUPTING;
      lastCtrlC = Instant.EPOCH;
      return;
    }
    if (Duration.between(lastCtrlC, now).compareTo(SECOND_CTRL_C) <= 0) {
      quit = true;
      return;
    }
    lastCtrlC = now;
    hint = "Press Ctrl+C again to exit.";
  }

  private void submit(Tab tab) {
    String text = tab.editor.text();
    if (text.isBlank()) {
      return;
    }
    history.add(text);
    tab.editor.clear();
    if (SlashCommand.isCommand(text)) {
      runCommand(tab, text.strip());
      return;
    }
    if (tab.state.running()) {
      tab.session.submit(new Command.Steer(text));
      if (tab.state.viewed().isPresent()) {
        tab.session.submit(Command.View.live());
        tab.state.notice(Tone.MUTED, "A turn is running: the message steers it (it does not branch from #"
            + tab.state.viewed().get() + "). Back to live.");
      }
    } else {
      saveThenSubmit(tab, text, List.of(new Command.SendPrompt(text)));
    }
    tab.scroll.follow();
  }

  /**
   * Submits {@code commands} once the session is saved with {@code draft} as the tab's input. A turn
   * writes ahead to the store from its first tool call, before the autosave of its start can run:
   * saved first, a process killed at any moment leaves a session that names the tab (so its tags
   * come back) and keeps the message that started the turn.
   */
  private void saveThenSubmit(Tab tab, String draft, List<Command> commands) {
    List<SessionControl.OpenTab> open = openTabs(tab, draft);
    Runnable submitAll = () -> {
      try {
        commands.forEach(tab.session::submit);
      } catch (RuntimeException e) {
        LOG.warn("the tab closed before its commands could be submitted", e); // Waymark is quitting
      }
    };
    try {
      saver.execute(() -> {
        try {
          sessions.save(open, null);
        } catch (RuntimeException e) {
          LOG.warn("saving the session before a turn failed", e);
          inbox.add(new Notice("The session could not be saved: " + e.getMessage(), true));
        } finally {
          submitAll.run();
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
      submitAll.run();
    }
  }

  private void runCommand(Tab tab, String text) {
    int current = tab.state.viewed().orElse(tab.state.live());
    String saveName = "cp" + tab.state.live() + "-"
        + LocalDateTime.ofInstant(options.clock().instant(), ZoneId.systemDefault()).format(SAVE_NAME);
    SlashCommand.Parsed parsed = SlashCommand.parse(text, current, saveName);
    if (parsed instanceof SlashCommand.Parsed.Invalid invalid) {
      tab.state.notice(Tone.ERROR, "✗ " + invalid.message());
    } else if (parsed instanceof SlashCommand.Parsed.Help) {
      showHelp();
    } else if (parsed instanceof SlashCommand.Parsed.Quit) {
      requestQuit();
    } else if (parsed instanceof SlashCommand.Parsed.TabCommand tabCommand) {
      tabCommand(tab, tabCommand);
    } else if (parsed instanceof SlashCommand.Parsed.Rewind) {
      openRewind(tab);
    } else if (parsed instanceof SlashCommand.Parsed.ToggleReasoning) {
      tab.state.toggleReasoning();
    } else if (parsed instanceof SlashCommand.Parsed.Session session) {
      sessionCommand(tab, session);
    } else if (parsed instanceof SlashCommand.Parsed.ForTab forTab) {
      if (tab.state.running() && forTab.keepsDraft()) {
        tab.state.notice(Tone.ERROR, "✗ A turn is running; interrupt it (Esc) before moving the tab.");
        return;
      }
      List<Command> commands = new ArrayList<>();
      if (forTab.keepsDraft()) {
        commands.add(new Command.KeepDraft(""));
      }
      commands.addAll(forTab.commands());
      String branchText = forTab.commands().stream().filter(Command.Branch.class::isInstance).map(c -> ((Command.Branch) c).text())
          .findFirst().orElse(null);
      if (branchText != null) {
        saveThenSubmit(tab, branchText, commands);
      } else {
        commands.forEach(tab.session::submit);
      }
    }
  }

  /** {@code /tab}: the closed tabs; {@code /tab reopen [N]}: the last closed one, or the N-th listed. */
  private void tabCommand(Tab tab, SlashCommand.Parsed.TabCommand command) {
    if (closedTabs.isEmpty()) {
      tab.state.notice(Tone.MUTED, "No closed tab to reopen in this session.");
      return;
    }
    if (!command.reopen()) {
      List<String> lines = new ArrayList<>(List.of("Closed tabs (/tab reopen N):"));
      for (int i = 0; i < closedTabs.size(); i++) {
        TabState s = closedTabs.get(i).state;
        lines.add("  " + (i + 1) + "  " + (s.title().isEmpty() ? "(no prompt)" : s.title()) + "  · live #" + s.live());
      }
      tab.state.notice(Tone.NORMAL, String.join("\n", lines));
      return;
    }
    int index = command.number() < 0 ? closedTabs.size() - 1 : command.number() - 1;
    if (index < 0 || index >= closedTabs.size()) {
      tab.state.notice(Tone.ERROR, "✗ There is no closed tab " + (index + 1) + "; /tab lists them.");
      return;
    }
    Tab back = closedTabs.remove(index);
    tabs.add(back);
    active = tabs.size() - 1;
    back.state.notice(Tone.MUTED, "Tab reopened.");
    sessionChanged = true;
  }

  private void sessionCommand(Tab tab, SlashCommand.Parsed.Session command) {
    try {
      switch (command.verb()) {
        case "save" -> tab.state.notice(Tone.ACCENT, saveSession(command.argument(), true));
        case "list" -> tab.state.notice(Tone.NORMAL, String.join("\n", sessions.list()));
        case "delete" -> tab.state.notice(Tone.MUTED, sessions.delete(command.argument()));
        case "load" -> loadSession(command.argument());
        default -> tab.state.notice(Tone.ERROR, "✗ Unknown /session command.");
      }
    } catch (dev.waymark.core.session.SessionException e) {
      tab.state.notice(Tone.ERROR, "✗ " + e.getMessage());
    }
  }

  private void loadSession(String idOrName) {
    for (Tab t : tabs) {
      if (t.state.running()) {
        current().state.notice(Tone.ERROR, "✗ A turn is running in tab " + (tabs.indexOf(t) + 1)
            + "; interrupt it (Esc) before loading another session.");
        return;
      }
    }
    saveSession(null, true);
    SessionControl.Loaded loaded = sessions.load(idOrName);
    List<Tab> old = new ArrayList<>(tabs);
    old.addAll(closedTabs);
    tabs.clear();
    closedTabs.clear();
    openLoaded(loaded);
    for (Tab t : old) {
      t.session.close();
    }
    if (tabs.isEmpty()) {
      openTab();
    }
  }

  /** The open tabs as saved, {@code drafted} (if any) with {@code draft} in place of its input. */
  private List<SessionControl.OpenTab> openTabs(Tab drafted, String draft) {
    List<SessionControl.OpenTab> open = new ArrayList<>();
    for (Tab t : tabs) {
      open.add(new SessionControl.OpenTab(t.session, t.state.title(), t == drafted ? draft : t.editor.text(), false, t == current()));
    }
    for (Tab t : closedTabs) {
      open.add(new SessionControl.OpenTab(t.session, t.state.title(), t.editor.text(), true));
    }
    return open;
  }

  /**
   * Saves the session of the open tabs. An autosave ({@code force} false) is written on the saver
   * thread, so a slow disk never stalls a frame; the others wait for it (after any autosave still
   * queued) and return what to tell the user. A failed autosave is reported in the chat.
   */
  private String saveSession(String name, boolean force) {
    if (tabs.isEmpty() || (!force && !sessionChanged)) {
      return "";
    }
    sessionChanged = false;
    List<SessionControl.OpenTab> open = openTabs(null, null);
    java.util.concurrent.Future<String> saved = saver.submit(() -> {
      try {
        return sessions.save(open, name);
      } catch (RuntimeException e) {
        LOG.warn("saving the session failed", e);
        if (name == null) {
          inbox.add(new Notice("The session could not be saved: " + e.getMessage(), true));
          return "";
        }
        throw e;
      }
    });
    if (!force) {
      return "";
    }
    try {
      return saved.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }

  private void approve(Tab tab, TabState.PendingApproval pending, boolean forSession) {
    tab.session.submit(new Command.Approve(pending.call().id(), forSession));
    tab.state.clearPendingApproval();
  }

  private void deny(Tab tab, TabState.PendingApproval pending) {
    tab.session.submit(new Command.Deny(pending.call().id(), ""));
    tab.state.clearPendingApproval();
  }

  private void requestClose(Tab tab) {
    String kept = tabs.size() == 1 ? " Closing the last tab quits; --continue brings it back. [y/N]"
        : " It stays in the session: /tab reopen brings it back. [y/N]";
    if (tab.state.running()) {
      confirming = new Confirm("A turn is running in this tab. Close it anyway?" + kept, () -> close(tab));
    } else if (tab.state.checkpoints().size() > 1 || !tab.editor.isEmpty()) {
      confirming = new Confirm("Close tab " + (tabs.indexOf(tab) + 1) + " (" + (tab.state.checkpoints().size() - 1)
          + " checkpoints)?" + kept, () -> close(tab));
    } else {
      close(tab);
    }
  }

  /** Ctrl+D and /quit: asks first while a tool call waits for approval. */
  private void requestQuit() {
    for (int i = 0; i < tabs.size(); i++) {
      if (tabs.get(i).state.pendingApproval().isPresent()) {
        confirming = new Confirm("A tool call waits for your approval in tab " + (i + 1) + ". Quit anyway? It is saved "
            + "with the session, and waymark --continue proposes it again. [y/N]", () -> quit = true);
        return;
      }
    }
    quit = true;
  }

  private void answer(String answer) {
    Confirm question = confirming;
    confirming = null;
    if (answer.equalsIgnoreCase("y")) {
      question.yes().run();
    }
  }

  /**
   * Closes a tab: a running turn is interrupted, and the tab stays in the session (its tags too)
   * to be reopened. Closing the last tab quits, with the tab kept open.
   */
  private void close(Tab tab) {
    if (tabs.size() == 1) {
      quit = true;
      return;
    }
    int index = tabs.indexOf(tab);
    tabs.remove(tab);
    if (tab.state.running()) {
      tab.session.submit(new Command.Cancel());
    }
    closedTabs.add(tab);
    sessionChanged = true;
    active = Math.min(index, tabs.size() - 1);
  }

  private void showHelp() {
    Map<String, String> keys = new LinkedHashMap<>();
    List<String> tabKeys = new ArrayList<>();
    for (Action action : Action.values()) {
      List<KeyChord> chords = options.keys().chordsFor(action);
      if (action.name().startsWith("TAB_")) {
        chords.stream().findFirst().ifPresent(c -> tabKeys.add(c.toString()));
        if (action == Action.TAB_9 && !tabKeys.isEmpty()) {
          keys.put("go to tab 1…9", tabKeys.size() > 2
              ? tabKeys.get(0) + " … " + tabKeys.get(tabKeys.size() - 1) : String.join(", ", tabKeys));
        }
      } else if (!chords.isEmpty()) {
        keys.put(action.description(), String.join(", ", chords.stream().map(KeyChord::toString).toList()));
      }
    }
    overlay = new Overlay("Help", width -> HelpText.render(keys, width));
  }

  // ------------------------------------------------------------------------------ drawing

  private void draw() throws IOException {
    TerminalSize resized = screen.doResizeIfNecessary();
    TerminalSize size = screen.getTerminalSize();
    TextGraphics g = screen.newTextGraphics();
    paint(g, size);
    boolean complete = resized != null;
    frameWrapper.accept(() -> {
      try {
        screen.refresh(complete ? Screen.RefreshType.COMPLETE : Screen.RefreshType.DELTA);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  /** Paints the whole UI into {@code g}; no terminal I/O. */
  void paint(TextGraphics g, TerminalSize size) {
    int width = size.getColumns();
    int height = size.getRows();
    g.setBackgroundColor(com.googlecode.lanterna.TextColor.ANSI.DEFAULT);
    g.setForegroundColor(com.googlecode.lanterna.TextColor.ANSI.DEFAULT);
    g.fill(' ');
    tooSmall = width < MIN_COLUMNS || height < MIN_ROWS;
    if (tooSmall) {
      paintTooSmall(g, width, height);
      return;
    }
    Tab tab = current();
    String spinner = SPINNER[(int) ((System.nanoTime() / 100_000_000L) % SPINNER.length)];
    Instant now = options.clock().instant();

    List<TabBar.Label> labels = new ArrayList<>();
    for (int i = 0; i < tabs.size(); i++) {
      TabState s = tabs.get(i).state;
      labels.add(new TabBar.Label(s.title(), i == active, s.running(), s.unseenFinish()));
    }
    Painter.paint(g, 0, 0, TabBar.render(labels, width, spinner), width);
    Painter.paint(g, 0, height - 1, footerLine(tab, width, now, spinner), width);

    // bottom-up: input, approval, steering, then the chat takes what is left
    int bottom = height - 1;
    int inputWidth = width - 2;
    int maxInputRows = Math.min(MAX_INPUT_ROWS, Math.max(1, (height - 6) / 3));
    InputLayout.Layout input = InputLayout.layout(tab.editor.text(), tab.editor.caret(), inputWidth, maxInputRows);
    int inputRows = Math.max(1, Math.min(input.rows().size() - input.firstRow(), maxInputRows));
    int inputTop = bottom - inputRows;
    String rule = "─".repeat(Math.max(0, width));
    Tone ruleTone = tab.state.viewed().isPresent() ? Tone.VIEWED : Tone.MUTED;
    Painter.paint(g, 0, inputTop - 1, Line.of(Span.of(rule, ruleTone)), width);
    if (input.rows().size() > inputRows) { // a long paste: say how much is there beyond the rows shown
      long lines = tab.editor.text().chars().filter(c -> c == '\n').count() + 1;
      String amount = " " + lines + " lines, " + (tab.editor.text().length() + 1023) / 1024 + " KB in the input ─";
      Painter.paint(g, Math.max(0, width - amount.length()), inputTop - 1, Line.of(Span.of(amount, ruleTone)), width);
    }
    for (int r = 0; r < inputRows; r++) {
      int index = input.firstRow() + r;
      String text = index < input.rows().size() ? input.rows().get(index) : "";
      String prefix = index == 0 ? "› " : "  ";
      Span typed = tab.editor.selected() ? new Span(text, Style.PLAIN.reversed()) : Span.plain(text);
      Painter.paint(g, 0, inputTop + r, Line.of(Span.of(prefix, Tone.USER), typed), width);
    }
    if (tab.editor.isEmpty() && !tab.state.running()) {
      String placeholder = tab.state.viewed().isPresent()
          ? "Send a message to branch from #" + tab.state.viewed().get() + "…"
          : "Ask for a change, or type / for commands…";
      Painter.paint(g, 2, inputTop, Line.of(Span.of(placeholder, Tone.MUTED)), width - 2);
    } else if (tab.editor.isEmpty()) {
      String placeholder = tab.state.viewed().isPresent()
          ? "A turn is running: Enter steers it and ends viewing; Esc or Ctrl+C interrupts…"
          : "Type to steer the running turn (Enter), Esc or Ctrl+C to interrupt…";
      Painter.paint(g, 2, inputTop, Line.of(Span.of(placeholder, Tone.MUTED)), width - 2);
    }
    int above = inputTop - 1;

    List<Line> approval = approvalRows(tab, width, Math.max(0, above - 1 - 3));
    above -= approval.size();
    for (int r = 0; r < approval.size(); r++) {
      Painter.paint(g, 0, above + r, approval.get(r), width);
    }

    List<Line> steering = steeringRows(tab, width);
    above -= steering.size();
    for (int r = 0; r < steering.size(); r++) {
      Painter.paint(g, 0, above + r, steering.get(r), width);
    }
    if (!hint.isEmpty() && above - 1 > 1) {
      above -= 1;
      Painter.paint(g, 0, above, Wrap.truncate(Line.of(Span.of(hint, Tone.WARNING)), width), width);
    }

    int chatTop = 1;
    chatHeight = Math.max(0, above - chatTop);
    chatWidth = Math.max(1, width - Rail.WIDTH - 1);
    if (overlay != null || confirming != null) {
      paintOverlay(g, chatTop, chatHeight, width);
    } else if (rewind != null && chatHeight > 1) {
      Painter.paint(g, 0, chatTop, Wrap.truncate(Line.of(new Span(" " + rewind.title() + " ", Style.of(Tone.ACCENT).reversed()),
          Span.of("  ↑↓ Enter · Esc", Tone.MUTED)), width), width);
      List<Line> rows = rewind.rows(width, chatHeight - 1);
      for (int r = 0; r < rows.size(); r++) {
        Painter.paint(g, 0, chatTop + 1 + r, rows.get(r), width);
      }
    } else {
      List<Line> chat = ChatView.render(tab.state, tab.scroll, chatWidth, chatHeight);
      for (int r = 0; r < chat.size(); r++) {
        Painter.paint(g, 0, chatTop + r, chat.get(r), chatWidth);
      }
      if (!tab.scroll.following() && chatHeight > 0) {
        Painter.paint(g, Math.max(0, chatWidth - 14), chatTop + chatHeight - 1,
            Line.of(Span.of(" ↓ more (PgDn) ", Tone.ACCENT)), 15);
      }
      List<Line> rail = Rail.render(tab.state, chatHeight, spinner);
      for (int r = 0; r < rail.size(); r++) {
        Painter.paint(g, width - Rail.WIDTH, chatTop + r, rail.get(r), Rail.WIDTH);
      }
    }

    boolean modal = overlay != null || rewind != null || confirming != null
        || (tab.state.pendingApproval().isPresent() && tab.editor.isEmpty());
    if (modal) {
      screen.setCursorPosition(null);
    } else {
      int caretRow = inputTop + (input.caretRow() - input.firstRow());
      screen.setCursorPosition(new TerminalPosition(Math.min(width - 1, 2 + input.caretColumn()), caretRow));
    }
  }

  private Line footerLine(Tab tab, int width, Instant now, String spinner) {
    return Footer.render(tab.state, options.modelLabel(), options.approvalLabel(), width, now, spinner);
  }

  private List<Line> approvalRows(Tab tab, int width, int maxRows) {
    Optional<TabState.PendingApproval> pending = tab.state.pendingApproval();
    List<Line> rows = new ArrayList<>();
    if (pending.isEmpty() || maxRows < 3) {
      return rows;
    }
    TabState.PendingApproval p = pending.get();
    rows.add(Wrap.truncate(Line.of(new Span((p.proposedAgain() ? "Proposed again — allow " : "Allow ") + p.call().name()
        + ": " + p.summary() + "?", Style.of(Tone.WARNING).bolded())), width));
    List<Line> body = p.preview().isBlank() ? List.of() : DiffLines.render(p.preview(), width - 2).stream()
        .filter(l -> !l.text().startsWith("diff --waymark ")).toList();
    int room = maxRows - 2;
    for (int i = 0; i < body.size() && i < room; i++) {
      rows.add(i == room - 1 && body.size() > room
          ? Line.of(Span.of("  … " + (body.size() - room + 1) + " more lines", Tone.MUTED))
          : body.get(i).prefixed("  "));
    }
    Line answers = Line.of(Span.of(" [y] ", Tone.ACCENT), Span.plain("allow once  "), Span.of("[a] ", Tone.ACCENT),
        Span.plain("allow " + p.call().name() + " for this session  "), Span.of("[n] ", Tone.ACCENT), Span.plain("deny"));
    if (answers.width() > width) { // a narrow window still shows every answer
      answers = Line.of(Span.of(" [y] ", Tone.ACCENT), Span.plain("once  "), Span.of("[a] ", Tone.ACCENT),
          Span.plain("always  "), Span.of("[n] ", Tone.ACCENT), Span.plain("deny"));
    }
    rows.add(answers);
    return rows;
  }

  private List<Line> steeringRows(Tab tab, int width) {
    List<String> queue = tab.state.steeringQueue();
    List<Line> rows = new ArrayList<>();
    int shown = Math.min(3, queue.size());
    for (int i = 0; i < shown; i++) {
      rows.add(Wrap.truncate(Line.of(Span.of(" ⏳ queued: ", Tone.MUTED), Span.of(queue.get(i).replace('\n', ' '), Tone.USER)), width));
    }
    if (queue.size() > shown) {
      rows.add(Line.of(Span.of("    +" + (queue.size() - shown) + " more queued", Tone.MUTED)));
    }
    return rows;
  }

  private void paintOverlay(TextGraphics g, int top, int height, int width) {
    if (height <= 0) {
      return;
    }
    if (confirming != null) {
      List<Line> rows = Wrap.wrap(Line.of(new Span(confirming.question(), Style.of(Tone.WARNING).bolded())), width);
      for (int r = 0; r < rows.size() && r < height; r++) {
        Painter.paint(g, 0, top + r, rows.get(r), width);
      }
      return;
    }
    Painter.paint(g, 0, top, Wrap.truncate(Line.of(new Span(" " + overlay.title() + " ", Style.of(Tone.ACCENT).reversed()),
        Span.of("  ↑↓ PgUp PgDn scroll · Esc/q close", Tone.MUTED)), width), width);
    List<Line> rows = overlay.rows(width);
    int page = height - 1;
    overlay.scroll(0, page);
    for (int r = 0; r < page && overlay.top() + r < rows.size(); r++) {
      Painter.paint(g, 0, top + 1 + r, rows.get(overlay.top() + r), width);
    }
  }

  private void paintTooSmall(TextGraphics g, int width, int height) {
    Line message = Line.of(Span.of("Waymark needs at least " + MIN_COLUMNS + "×" + MIN_ROWS + " (this is " + width + "×" + height
        + "). Enlarge the window; until then typing is ignored. Esc interrupts, Ctrl+D quits.", Tone.WARNING));
    List<Line> rows = Wrap.wrap(message, Math.max(1, width));
    for (int r = 0; r < rows.size() && r < height; r++) {
      Painter.paint(g, 0, r, rows.get(r), width);
    }
    screen.setCursorPosition(null);
  }
}
