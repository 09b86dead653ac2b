package dev.waymark.tui.keys;

import com.googlecode.lanterna.input.KeyStroke;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.approval.ApprovalPrompt;
import dev.waymark.tui.chat.ChatView;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.command.CommandEntry;
import dev.waymark.tui.command.ModeText;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.frame.Layers;
import dev.waymark.tui.input.InputEditor;
import dev.waymark.tui.input.InputHistory;
import dev.waymark.tui.input.MentionFinder;
import dev.waymark.tui.screen.CommandMenu;
import dev.waymark.tui.screen.Overlay;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.tab.Tabs;
import dev.waymark.tui.terminal.Action;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import dev.waymark.tui.text.Plurals;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where input goes. Every key is looked up in the {@link KeyMap} and its action done by what takes
 * the keys now: a yes/no question, a panel, a list, an approval waiting, else the tab and its
 * input. An approval is answered only with keys that never type text (↑ ↓ Enter Esc), while the
 * input is empty: typed and pasted text goes to the input (or to the reason of a denial), so a
 * message typed while a call waits can never answer it.
 */
public final class KeyRouter {
  private static final Duration SECOND_CTRL_C = Duration.ofSeconds(2);
  private static final Duration SECOND_ESC = Duration.ofMillis(800);
  /** How long an approval is shown before Enter answers it: an Enter pressed twice to send a prompt must not allow the call it brought. */
  public static final Duration APPROVAL_READING_TIME = Duration.ofMillis(400);
  public static final String INTERRUPTING = "Interrupting…";

  private final Tabs tabs;
  private final Layers layers;
  private final KeyMap keys;
  private final Clock clock;
  private final InputHistory history;
  private final Host host;
  private Instant lastEsc = Instant.EPOCH;
  private Instant lastCtrlC = Instant.EPOCH;

  public KeyRouter(Tabs tabs, Layers layers, KeyMap keys, Clock clock, InputHistory history, Host host) {
    this.tabs = tabs;
    this.layers = layers;
    this.keys = keys;
    this.clock = clock;
    this.history = history;
    this.host = host;
  }

  /** Handles one input; {@code tooSmall}: the input is not on screen, so only quitting and interrupting work. */
  public void route(UiInput input, boolean tooSmall) {
    if (input instanceof UiInput.Eof) {
      host.quit();
      return;
    }
    Optional<Action> action = input instanceof UiInput.Key key ? keys.actionFor(key.stroke()) : Optional.empty();
    if (tooSmall && !action.filter(a -> a == Action.CLEAR_OR_EXIT || a == Action.EXIT_IF_EMPTY || a == Action.INTERRUPT)
        .isPresent()) {
      return; // typing blind could send a prompt nobody read
    }
    if (input instanceof UiInput.Paste paste) {
      if (!layers.modal()) {
        TabController tab = tabs.current();
        boolean reason = tab.approvalPrompt().filter(p -> p.step() == ApprovalPrompt.Step.REASON).isPresent();
        type(tab, reason ? paste.text() : tabs.pastes().fold(paste.text())); // a long paste: one placeholder
      }
    } else if (input instanceof UiInput.Text text) {
      onText(text.text());
    } else if (input instanceof UiInput.Key key) {
      onKey(key.stroke(), action);
    }
  }

  private void onText(String text) {
    Layers.Confirm question = layers.confirm();
    if (question != null) {
      if (question.cameUp() != null
          && Duration.between(question.cameUp(), clock.instant()).compareTo(APPROVAL_READING_TIME) < 0) {
        // it came up as the user typed: the letter is the message's, not an answer (a "y" would overwrite files)
        layers.hint("Waymark just asked above: read it, then answer y or n.");
        type(tabs.current(), text);
        return;
      }
      layers.answer(text);
      return;
    }
    if (layers.overlay() != null && layers.overlay().typed(text, Math.max(1, host.chatHeight() - 2))) {
      return;
    }
    if (layers.overlay() == null && layers.picker() != null && layers.picker().searchable()) {
      layers.picker().type(text);
      return;
    }
    if (layers.overlay() != null || layers.picker() != null) {
      if (text.equals("q")) {
        layers.closePanels();
      }
      return;
    }
    type(tabs.current(), text);
  }

  /** Text for the tab: the reason of a denial being written, else the input (a message instead of an answer). */
  private void type(TabController tab, String text) {
    Optional<ApprovalPrompt> prompt = tab.approvalPrompt();
    if (prompt.isPresent() && prompt.get().step() == ApprovalPrompt.Step.REASON) {
      prompt.get().reason().insert(text.replace('\n', ' '));
      return;
    }
    prompt.ifPresent(ApprovalPrompt::reset); // once the input is cleared, the prompt starts from its first step
    tab.editor().insert(text);
    if (text.equals("@") && layers.mentions() != null) {
      layers.mentions().refresh(); // files made since the last walk are found by the time a few letters are typed
    }
  }

  /** The keys of an approval that has the focus; false for a key it leaves to the tab (switching tabs, help, scrolling). */
  private boolean answerApproval(TabController tab, Action action) {
    Optional<ApprovalPrompt> found = tab.approvalPrompt();
    if (found.isEmpty()) {
      return false;
    }
    ApprovalPrompt prompt = found.get();
    boolean reason = prompt.step() == ApprovalPrompt.Step.REASON;
    if (!reason && !tab.editor().isEmpty()) {
      return false; // the input has the focus until it is empty again
    }
    Optional<ApprovalPrompt.Answer> answer = Optional.empty();
    switch (action) {
      case HISTORY_PREVIOUS -> prompt.move(-1);
      case HISTORY_NEXT -> prompt.move(1);
      case SCROLL_UP, SCROLL_DOWN -> {
        if (!prompt.scrollDiff(action == Action.SCROLL_UP ? -1 : 1)) {
          return false; // a diff that fits, or at its end: the chat scrolls
        }
      }
      case SUBMIT -> {
        if (prompt.step() == ApprovalPrompt.Step.CHOOSE
            && Duration.between(tab.state().pendingSince(), clock.instant()).compareTo(APPROVAL_READING_TIME) < 0) {
          layers.hint("A tool call just asked for approval: read it, then press Enter again to answer.");
          return true;
        }
        answer = prompt.confirm();
      }
      case INTERRUPT -> answer = prompt.escape();
      case CLEAR_OR_EXIT -> {
        if (!reason) {
          return false; // Ctrl+C: the turn stops, as anywhere
        }
        if (prompt.reason().isEmpty()) {
          prompt.escape();
        } else {
          prompt.reason().clear();
        }
      }
      case NEWLINE -> { } // a reason is one line
      default -> {
        if (!reason || !action.edits()) {
          return false;
        }
        edit(prompt.reason(), action);
      }
    }
    if (answer.filter(a -> a instanceof ApprovalPrompt.Answer.Stop).isPresent()) {
      stop(tab);
    } else {
      answer.flatMap(tab::answer).ifPresent(layers::hint);
    }
    return true;
  }

  /** Esc at an approval: the turn stops there, and the model is not called again until the user sends something. */
  private void stop(TabController tab) {
    boolean running = tab.state().running();
    tab.answer(new ApprovalPrompt.Answer.Stop());
    if (running) {
      layers.hint(INTERRUPTING);
    }
  }

  private void onKey(KeyStroke stroke, Optional<Action> action) {
    layers.hint("");
    if (layers.confirm() != null) {
      layers.answer(""); // [y/N]: Enter, Esc and every other key take the default shown, no
    } else if (action.isEmpty()) {
      return; // not bound: nothing to do
    } else if (layers.overlay() != null) {
      onOverlay(layers.overlay(), action.get());
    } else if (layers.picker() != null) {
      onPicker(layers.picker(), action.get());
    } else if (finderOpen() && onFinder(layers.mentions(), action.get())) {
      return;
    } else if (onMenu(tabs.current(), action.get()) || onPlanQuestion(tabs.current(), action.get())) {
      return;
    } else if (!answerApproval(tabs.current(), action.get()) && !perform(action.get())) {
      edit(tabs.current().editor(), keys.nextFor(stroke, action.get()).orElse(action.get()));
    }
  }

  private void onOverlay(Overlay overlay, Action action) {
    int page = Math.max(1, host.chatHeight() - 2);
    switch (action) {
      case INTERRUPT, CLEAR_OR_EXIT, HELP -> layers.closePanels();
      case EXIT_IF_EMPTY -> quitFromPanel();
      case HISTORY_PREVIOUS -> overlay.scroll(-1, page);
      case HISTORY_NEXT -> overlay.scroll(1, page);
      case SCROLL_UP -> overlay.scroll(-page, page);
      case SCROLL_DOWN -> overlay.scroll(page, page);
      case LINE_START -> overlay.scrollTo(0, page);
      case LINE_END -> overlay.scrollTo(Integer.MAX_VALUE / 2, page);
      default -> { }
    }
  }

  /** Ctrl+D over a panel does what it does under it: quits on an empty input (asking when it must), else nothing. */
  private void quitFromPanel() {
    if (tabs.current().editor().isEmpty()) {
      layers.closePanels();
      host.requestQuit();
    }
  }

  private void onPicker(Picker picker, Action action) {
    int page = Math.max(1, host.chatHeight() - 2);
    switch (action) {
      case INTERRUPT, CLEAR_OR_EXIT -> layers.closePanels();
      case EXIT_IF_EMPTY -> quitFromPanel();
      case HISTORY_PREVIOUS -> picker.move(-1);
      case HISTORY_NEXT -> picker.move(1);
      case SCROLL_UP -> picker.move(-page);
      case SCROLL_DOWN -> picker.move(page);
      case DELETE_BACK -> picker.deleteBack();
      case SUBMIT -> {
        if (picker.chosen() != null) {
          layers.closePanels();
          picker.choose();
        }
      }
      default -> { }
    }
  }

  /** The command menu's keys while it is open; false for a key it leaves to the rest. */
  private boolean onMenu(TabController tab, Action action) {
    InputEditor editor = tab.editor();
    String text = editor.text();
    CommandMenu menu = layers.menu();
    if (!menu.isOpen(text)) {
      return false;
    }
    switch (action) {
      case HISTORY_PREVIOUS -> menu.move(text, -1);
      case HISTORY_NEXT -> menu.move(text, 1);
      case COMPLETE -> menu.selected(text).ifPresent(e -> editor.setText(menu.completion(e)));
      case SUBMIT -> {
        CommandEntry entry = menu.selected(text).orElseThrow();
        if (entry.needsArguments()) {
          editor.setText(menu.completion(entry)); // its argument is typed next
        } else {
          history.add(entry.command());
          editor.clear();
          tab.scroll().follow(); // as submit does: what the command says shows even when the chat was scrolled up
          host.runCommand(tab, entry.command());
        }
      }
      case INTERRUPT -> menu.dismiss(text);
      default -> {
        return false;
      }
    }
    return true;
  }

  private boolean finderOpen() {
    return layers.mentions() != null && layers.mentions().open(tabs.current().editor());
  }

  /** The finder's keys while it shows; false for a key it leaves to the input. */
  private boolean onFinder(MentionFinder finder, Action action) {
    InputEditor editor = tabs.current().editor();
    switch (action) {
      case HISTORY_PREVIOUS -> finder.move(-1);
      case HISTORY_NEXT -> finder.move(1);
      case COMPLETE, SUBMIT -> finder.accept(editor);
      case INTERRUPT -> finder.dismiss(editor);
      default -> {
        return false;
      }
    }
    return true;
  }

  /** "Run this plan?": ↑ ↓ choose, Enter answers, Esc keeps planning; only on an empty input, so typing goes on as usual. */
  private boolean onPlanQuestion(TabController tab, Action action) {
    TabState state = tab.state();
    if (!state.planToRun() || !tab.editor().isEmpty() || state.running() || state.pendingApproval().isPresent()) {
      return false;
    }
    List<ApprovalMode> modes = ModeText.toRunAPlan(host.runInfo().sandboxed());
    int answers = modes.size() + 1; // and "no, keep planning"
    switch (action) {
      case HISTORY_PREVIOUS -> state.movePlanChoice(-1, answers);
      case HISTORY_NEXT -> state.movePlanChoice(1, answers);
      case SUBMIT -> {
        if (state.planChoice() < modes.size()) {
          tab.runPlan(modes.get(state.planChoice()));
          tab.scroll().follow();
        } else {
          keepPlanning(state);
        }
      }
      case INTERRUPT -> keepPlanning(state);
      default -> {
        return false;
      }
    }
    return true;
  }

  private void keepPlanning(TabState state) {
    state.clearPlan();
    layers.hint("Still in plan mode: say what to change in the plan, or Shift+Tab to another mode.");
  }

  /** Does a bound action on the tab; false when it is the input's to do. */
  private boolean perform(Action action) {
    TabController tab = tabs.current();
    InputEditor editor = tab.editor();
    switch (action) {
      case NEW_TAB -> host.openTab();
      case CLOSE_TAB -> {
        if (!editor.isEmpty()) {
          return false; // the input's: a key it shares with an editing action does that (Ctrl+W deletes a word)
        }
        host.requestClose(tab);
      }
      case NEXT_TAB -> tabs.next(1);
      case PREVIOUS_TAB -> tabs.next(-1);
      case TAB_1, TAB_2, TAB_3, TAB_4, TAB_5, TAB_6, TAB_7, TAB_8, TAB_9 -> tabs.activate(action.ordinal() - Action.TAB_1.ordinal());
      case VIEW_BACK -> tab.viewBack();
      case VIEW_FORWARD -> tab.viewForward();
      case INTERRUPT -> interrupt(tab);
      case SUBMIT -> submit(tab);
      case CLEAR_OR_EXIT -> clearOrExit(tab);
      case EXIT_IF_EMPTY -> {
        if (!editor.isEmpty()) {
          return false;
        }
        host.requestQuit();
      }
      case HISTORY_PREVIOUS -> {
        if (!editor.isOnFirstRow()) {
          return false;
        }
        history.previous(editor.text()).ifPresent(editor::setText);
        layers.menu().dismiss(editor.text()); // a /command brought back from history: ↑ goes on through history
      }
      case HISTORY_NEXT -> {
        if (!editor.isOnLastRow()) {
          return false;
        }
        history.next().ifPresent(editor::setText);
        layers.menu().dismiss(editor.text());
      }
      case COMPLETE -> complete(editor);
      case SCROLL_UP -> ChatView.scrollUp(tab.state(), tab.scroll(), host.chatWidth(), host.chatHeight(),
          Math.max(1, host.chatHeight() / 2));
      case SCROLL_DOWN -> ChatView.scrollDown(tab.state(), tab.scroll(), host.chatWidth(), Math.max(1, host.chatHeight() / 2));
      case EXPAND -> tab.state().toggleExpanded();
      case CYCLE_MODE -> layers.hint("Mode " + ModeText.describe(tab.cycleMode(host.runInfo().sandboxed()))
          + " · Shift+Tab: " + ModeText.cycle(host.runInfo().sandboxed()));
      case HELP -> host.showHelp();
      default -> {
        return false;
      }
    }
    return true;
  }

  /** The input's own keys, and the ones a bound action left to it. */
  private static void edit(InputEditor editor, Action action) {
    switch (action) {
      case NEWLINE -> editor.insert("\n");
      case CURSOR_LEFT -> editor.left();
      case CURSOR_RIGHT -> editor.right();
      case HISTORY_PREVIOUS -> editor.up();
      case HISTORY_NEXT -> editor.down();
      case WORD_LEFT -> editor.wordLeft();
      case WORD_RIGHT -> editor.wordRight();
      case LINE_START -> editor.home();
      case LINE_END -> editor.end();
      case DELETE_BACK -> editor.backspace();
      case DELETE_FORWARD -> editor.delete();
      case DELETE_WORD_BACK -> editor.deleteWordBack();
      case KILL_TO_END -> editor.killToEnd();
      case KILL_TO_START -> editor.killToStart();
      default -> { } // Ctrl+D on a non-empty input, Tab outside a /command: nothing
    }
  }

  private void complete(InputEditor editor) {
    String text = editor.text();
    if (!SlashCommand.isCommand(text) || text.contains("\n")) {
      return;
    }
    List<String> more = layers.menu().catalog().entries().stream().map(e -> e.command()).toList(); // custom ones too
    String completed = SlashCommand.complete(text, more);
    if (completed.equals(text)) {
      List<String> options = SlashCommand.completions(text, more);
      layers.hint(String.join("  ", options));
    } else {
      editor.setText(completed);
    }
  }

  private void interrupt(TabController tab) {
    if (tab.state().viewed().isPresent()) {
      tab.viewLive(); // only the viewing ends: a running turn goes on (a second Esc interrupts it)
    } else if (tab.state().pendingApproval().isPresent()) {
      stop(tab); // with a message typed: the turn stops, and the message stays in the input
    } else if (tab.state().running()) {
      tab.cancel();
      layers.hint(INTERRUPTING);
    } else if (tab.editor().isEmpty()) {
      // Esc Esc on an idle, empty input: the rewind list, as in Claude Code
      Instant now = clock.instant();
      if (Duration.between(lastEsc, now).compareTo(SECOND_ESC) <= 0) {
        lastEsc = Instant.EPOCH;
        host.openRewind(tab);
      } else {
        lastEsc = now;
      }
    }
  }

  private void clearOrExit(TabController tab) {
    if (!tab.editor().isEmpty()) {
      history.add(tab.editor().text()); // a long draft cleared in a hurry is one ↑ away
      tab.editor().clear();
      layers.hint("Cleared: ↑ brings it back.");
      lastCtrlC = Instant.EPOCH;
    } else if (tab.state().running()) {
      // as in other coding agents: Ctrl+C stops the turn; only an idle tab arms the exit
      tab.cancel();
      layers.hint(INTERRUPTING);
      lastCtrlC = Instant.EPOCH;
    } else if (Duration.between(lastCtrlC, clock.instant()).compareTo(SECOND_CTRL_C) <= 0) {
      host.quit();
    } else {
      lastCtrlC = clock.instant();
      int running = host.backgroundProcesses();
      layers.hint(running == 0 ? "Press Ctrl+C again to exit."
          : "Press Ctrl+C again to exit and stop " + Plurals.backgroundProcesses(running) + ".");
    }
  }

  private void submit(TabController tab) {
    String text = tab.editor().text();
    if (text.isBlank()) {
      return;
    }
    history.add(text);
    tab.editor().clear();
    text = tabs.pastes().expand(text); // the pastes folded in it, whole
    if (text.startsWith("!") && !text.substring(1).isBlank()) {
      tab.runShell(text.substring(1).strip()); // !command: the user's own shell command, recorded like the agent's
      tab.scroll().follow();
      return;
    }
    if (host.sendThroughMcp(tab, text)) {
      tab.scroll().follow();
      return;
    }
    if (SlashCommand.isCommand(text)) {
      tab.scroll().follow(); // what the command says comes at the end of the chat: show it even when scrolled up
      host.runCommand(tab, text.strip());
      return;
    }
    tab.sendOrSteer(text);
  }
}
