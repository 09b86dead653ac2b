package dev.waymark.tui.tab;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import dev.waymark.tui.approval.ApprovalPrompt;
import dev.waymark.tui.chat.ChatView;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.input.InputEditor;
import dev.waymark.tui.input.InputHistory;
import dev.waymark.tui.text.Tone;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * One tab: its tab in the workspace, what it shows (its events folded into a {@link TabState}),
 * its own draft and scroll position. Every command the interface sends to a tab goes through
 * here, to the workspace, which saves the session before a turn starts.
 */
public final class TabController {
  private final Workspace workspace;
  private final WorkspaceTab tab;
  private final TabSession session;
  private final TabState state;
  private final ChatView.Scroll scroll = new ChatView.Scroll();
  private final InputEditor editor = new InputEditor();
  private ApprovalPrompt approvalPrompt; // how far the user got in answering the call waiting, if any
  private boolean compacting; // the running or last turn is a /compact

  /**
   * What the interface around the tab does after one of its events.
   *
   * @param hint a line for the user, or empty
   * @param diff a diff the user asked for, to show over the chat
   * @param turnEnded the turn ended (an "Interrupting…" hint has done its job)
   * @param branchRefused a message sent from an earlier checkpoint was refused: ask whether to force it
   */
  public record Reaction(String hint, Optional<DiffView> diff, boolean turnEnded, Optional<Event.BranchRefused> branchRefused) {}

  public TabController(Workspace workspace, WorkspaceTab tab, Clock clock) {
    this.workspace = workspace;
    this.tab = tab;
    this.session = tab.session();
    this.state = new TabState(tab.tabId(), clock);
    refreshIsolation();
  }

  /** For an isolated tab, how many files its view holds that the project does not; -1 for a tab that is not isolated. */
  private volatile int viewDiffers = -1;

  /** The tab bar's mark of an isolated tab ("◇" and the count of files its view changes); "" for another tab. */
  public String isolationMark() {
    int n = viewDiffers;
    return n < 0 ? "" : "◇" + n;
  }

  /** Counts again what the view holds (the engine reads it; the interface only shows the number). */
  private void refreshIsolation() {
    try {
      var tree = session.checkpoints();
      viewDiffers = tree.viewDirectory().isPresent() ? tree.viewDiffers() : -1;
    } catch (RuntimeException e) {
      viewDiffers = -1;
    }
  }

  public WorkspaceTab tab() {
    return tab;
  }

  public TabSession session() {
    return session;
  }

  public TabState state() {
    return state;
  }

  public ChatView.Scroll scroll() {
    return scroll;
  }

  public InputEditor editor() {
    return editor;
  }

  // ------------------------------------------------------------------ commands to the session

  /** Sends a prompt; the workspace saves the session with it as the draft first, so a kill mid-turn keeps it. */
  public void send(String text) {
    send(text, null);
  }

  /** {@link #send(String)} of the prompt a command the user typed as {@code typed} stands for: shown as typed. */
  public void send(String text, String typed) {
    // the checkpoint on screen goes with the prompt: a view moved right after cannot change where it branches from
    Command send = state.viewed().<Command>map(from -> new Command.Branch(from, text, false, typed))
        .orElse(new Command.SendPrompt(text, typed));
    workspace.submit(tab, List.of(send));
  }

  /**
   * Sends again a message whose branch was refused, overwriting the files that clashed (what they
   * held is kept under a rescued tag); the input gives it up if it still holds it unchanged.
   */
  public void forceBranch(Event.BranchRefused refused) {
    if (editor.text().equals(TypedPrompt.shown(refused.prompt()))) {
      editor.clear();
    }
    workspace.submit(tab, List.of(new Command.Branch(refused.from(), refused.prompt(), true)));
  }

  /** Runs commands a /checkpoint line parsed to; one that branches starts a turn, so it is saved first. */
  public void run(List<Command> commands) {
    workspace.submit(tab, commands);
  }

  /** Sends a message to the running turn; while viewing, the tab goes back to live (it does not branch). */
  /** A message typed in the input: it steers the running turn, or starts one; the chat then follows its end. */
  /** {@code !command}: run in a checkpoint of its own, its output shown and given to the model with the next prompt. */
  public void runShell(String command) {
    workspace.submit(tab, List.of(new Command.RunShell(command)));
  }

  public void sendOrSteer(String text) {
    if (state.running()) {
      steer(text);
    } else {
      send(text);
    }
    scroll().follow();
  }

  public void steer(String text) {
    steer(text, null);
  }

  /** {@link #steer(String)} with the prompt a command typed as {@code typed} stands for. */
  public void steer(String text, String typed) {
    session.submit(new Command.Steer(text, typed));
    state.viewed().ifPresent(viewed -> {
      session.submit(Command.View.live());
      state.notice(Tone.MUTED, "A turn is running: the message steers it (it does not branch from #" + viewed + "). Back to live.");
    });
  }

  public void viewBack() {
    session.submit(Command.View.back());
  }

  public void viewForward() {
    session.submit(Command.View.forward());
  }

  public void viewLive() {
    session.submit(Command.View.live());
  }

  public void cancel() {
    session.submit(new Command.Cancel());
  }

  /** The tab's approval mode now. */
  public ApprovalMode mode() {
    return session.settings().approval();
  }

  /** The tab's model now. */
  public String model() {
    return session.settings().model();
  }

  /** Sets the tab's approval mode; it applies from the running turn's next tool call. */
  public void setMode(ApprovalMode mode) {
    session.submit(new Command.SetMode(mode.label()));
  }

  /** Sets the model of the tab's next model call. */
  public void setModel(String model) {
    session.submit(new Command.SetModel(model));
  }

  /** Shift+Tab: the next mode of the cycle (a mode that runs commands unasked only when {@code sandboxed}). */
  public ApprovalMode cycleMode(boolean sandboxed) {
    ApprovalMode next = mode().next(sandboxed);
    setMode(next);
    return next;
  }

  /** What the prompt that carries out a plan says. */
  public static final String RUN_PLAN = "Carry out the plan.";

  /** "Run this plan?" answered with a mode: the tab switches to it and a turn carries out the plan. */
  public void runPlan(ApprovalMode mode) {
    state.clearPlan();
    setMode(mode);
    send(RUN_PLAN);
  }

  public void approve(TabState.PendingApproval pending, boolean forSession) {
    session.submit(new Command.Approve(pending.call().id(), forSession));
    state.clearPendingApproval();
  }

  public void deny(TabState.PendingApproval pending, String reason) {
    session.submit(new Command.Deny(pending.call().id(), reason));
    state.clearPendingApproval();
  }

  /** The prompt of the tool call waiting for approval, kept while that call waits; empty when none waits. */
  public Optional<ApprovalPrompt> approvalPrompt() {
    Optional<TabState.PendingApproval> pending = state.pendingApproval();
    if (pending.isEmpty()) {
      approvalPrompt = null;
    } else if (approvalPrompt == null || !approvalPrompt.callId().equals(pending.get().call().id())) {
      var permissions = session.permissions();
      approvalPrompt = new ApprovalPrompt(pending.get().call(), session.ruleFor(pending.get().call()),
          ApprovalPrompt.SCOPES.stream().filter(permissions::keepsAllowRules).toList());
    }
    return Optional.ofNullable(approvalPrompt);
  }

  /**
   * Carries out the user's answer to the call waiting; returns what to tell the user when it could
   * not be (a rule that could not be saved: nothing was allowed, and the prompt stays).
   */
  public Optional<String> answer(ApprovalPrompt.Answer answer) {
    Optional<TabState.PendingApproval> waiting = state.pendingApproval();
    if (waiting.isEmpty()) {
      return Optional.empty();
    }
    TabState.PendingApproval pending = waiting.get();
    if (answer instanceof ApprovalPrompt.Answer.AllowOnce) {
      approve(pending, false);
    } else if (answer instanceof ApprovalPrompt.Answer.AllowWithRule rule) {
      try {
        session.permissions().add(rule.entry());
      } catch (IOException | RuntimeException e) {
        return Optional.of("Not allowed yet: the rule could not be kept in " + rule.entry().scope().label() + ": "
            + e.getMessage() + ". Choose another place, or Esc.");
      }
      state.notice(Tone.MUTED, "Allowed " + rule.entry().rule() + " from now on (" + rule.entry().scope().label()
          + "; /permissions lists and removes rules).");
      approve(pending, false);
    } else if (answer instanceof ApprovalPrompt.Answer.Deny deny) {
      deny(pending, deny.reason());
    } else if (state.running()) { // Stop: the turn ends, and the model is not called again
      cancel();
      state.clearPendingApproval();
    } else {
      deny(pending, ""); // proposed again after a restore: no turn runs, so there is nothing else to stop
    }
    return Optional.empty();
  }

  // ------------------------------------------------------------------------------- events

  /**
   * Folds one of the session's events into the tab. {@code active}: the tab is shown;
   * {@code chatWidth} places a view in the chat; a prompt that cannot come back into a draft the
   * user typed over goes into {@code history}.
   */
  public Reaction apply(Event event, boolean active, int chatWidth, InputHistory history) {
    state.apply(event, active);
    if (event instanceof Event.ToolCallFinished || event instanceof Event.CheckpointCreated
        || event instanceof Event.CheckpointRestored || event instanceof Event.TurnFinished) {
      refreshIsolation(); // what the view holds changes with tools, checkpoints, restores, lands and discards
    }
    String hint = "";
    if (event instanceof Event.ViewMoved) {
      ChatView.showViewed(state, scroll, chatWidth);
    } else if (event instanceof Event.TurnStarted) {
      scroll.follow();
    } else if (event instanceof Event.TurnFinished && state.viewed().isPresent()) {
      viewLive(); // viewed while it ran: back to live, so the next message does not branch by surprise
    }
    if (event instanceof Event.TurnStarted started) {
      compacting = started.prompt().equals("/compact");
    }
    if (event instanceof Event.TurnFinished finished && finished.status() == TurnStatus.DONE
        && mode() == ApprovalMode.PLAN && !compacting) {
      state.offerPlan(); // a summary is no plan to run
    } else if (event instanceof Event.CheckpointRestored) {
      scroll.follow();
      hint = state.takeDraftToRestore().map(draft -> refill(draft, history)).orElse("");
    }
    Optional<Event.BranchRefused> refused = state.takeBranchRefused();
    refused.ifPresent(r -> {
      if (editor.isEmpty()) {
        editor.setText(r.prompt()); // not selected: a key typed next edits it rather than replacing it
      } else {
        history.add(r.prompt());
      }
    });
    Optional<DiffView> diff = state.takeDiffToShow();
    if (diff.isPresent() && !active) {
      state.notice(Tone.MUTED, "A diff of #" + diff.get().checkpoint() + " is ready: /checkpoint diff " + diff.get().checkpoint());
      diff = Optional.empty();
    }
    return new Reaction(active ? hint : "", diff, event instanceof Event.TurnFinished, active ? refused : Optional.empty());
  }

  /** Folds an event of a closed tab: its turn still ends, and reopened it shows how. */
  public void applyClosed(Event event) {
    state.apply(event, false);
  }

  private String refill(String draft, InputHistory history) {
    if (editor.isEmpty()) {
      editor.refill(draft);
      return "The prompt of the undone turn is back: type to replace it, or move the cursor to edit it.";
    }
    history.add(draft); // typed over during the restore: what was typed stays, the prompt is one ↑ away
    return "Your typing stays; ↑ brings back the undone prompt.";
  }
}
