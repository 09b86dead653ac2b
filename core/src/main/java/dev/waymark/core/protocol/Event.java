package dev.waymark.core.protocol;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** What a tab tells its front ends, in order. Immutable plain values: no engine type leaks out. */
public sealed interface Event {
  /** Calls the method of {@code handler} for this event's type. */
  void dispatch(Handler handler);

  /**
   * One method per event: a new event does not compile until every front end that shows all of
   * them (the chat, {@code exec --json}) says what it does with it, so no event is silently dropped.
   */
  interface Handler {
    void turnStarted(TurnStarted event);

    void reasoningDelta(ReasoningDelta event);

    void assistantDelta(AssistantDelta event);

    void toolCallProposed(ToolCallProposed event);

    void toolCallFinished(ToolCallFinished event);

    void toolOutput(ToolOutput event);

    void steeringQueued(SteeringQueued event);

    void steeringFolded(SteeringFolded event);

    void checkpointCreated(CheckpointCreated event);

    void checkpointRestored(CheckpointRestored event);

    void branchRefused(BranchRefused event);

    void viewMoved(ViewMoved event);

    void checkpointSaved(CheckpointSaved event);

    void saveDeleted(SaveDeleted event);

    void checkpointsListed(CheckpointsListed event);

    void diffReady(DiffReady event);

    void comparisonReady(ComparisonReady event);

    void exported(Exported event);

    void waiting(Waiting event);

    void warning(Warning event);

    void promptBlocked(PromptBlocked event);

    void error(Error event);

    void settingsChanged(SettingsChanged event);

    void usageReported(UsageReported event);

    void contextUsed(ContextUsed event);

    void compacting(Compacting event);

    void turnFinished(TurnFinished event);

    void tabRestored(TabRestored event);
  }

  /** A turn began in checkpoint {@code checkpoint}, a child of {@code parent}. */
  record TurnStarted(int checkpoint, int parent, String prompt) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.turnStarted(this);
    }
  }

  /** Streamed reasoning of a reasoning model, before its answer or tool calls. */
  record ReasoningDelta(int checkpoint, String text) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.reasoningDelta(this);
    }
  }

  /** Streamed text of the model's answer. */
  record AssistantDelta(int checkpoint, String text) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.assistantDelta(this);
    }
  }

  /**
   * The model asked for a tool call; when {@code needsApproval}, it waits for Approve or Deny.
   * {@code preview} is the unified diff an edit would make, or empty.
   */
  record ToolCallProposed(int checkpoint, ToolCallView call, String summary, String preview, boolean needsApproval)
      implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.toolCallProposed(this);
    }
  }

  /**
   * A tool call ended (ran, failed, or was denied); {@code changedPaths} are the project files it
   * changed and recorded in the checkpoint, sorted (empty when unknown, e.g. in a restored chat);
   * {@code errorKind} what sort of failure an error is (empty for a success, and for an error of a
   * restored chat, whose session file keeps no kind).
   */
  record ToolCallFinished(int checkpoint, ToolCallView call, String result, boolean isError, List<String> changedPaths,
      Optional<ErrorKind> errorKind) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.toolCallFinished(this);
    }

    public ToolCallFinished {
      changedPaths = List.copyOf(changedPaths);
    }

    public ToolCallFinished(int checkpoint, ToolCallView call, String result, boolean isError) {
      this(checkpoint, call, result, isError, List.of());
    }

    public ToolCallFinished(int checkpoint, ToolCallView call, String result, boolean isError, List<String> changedPaths) {
      this(checkpoint, call, result, isError, changedPaths, Optional.empty());
    }
  }

  /**
   * What the running call {@code id} printed since its last {@code ToolOutput} (a shell command's
   * output as it comes, a few times a second at most); its {@link ToolCallFinished} follows and
   * holds the output the model gets, which is what stays.
   */
  record ToolOutput(int checkpoint, String id, String text) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.toolOutput(this);
    }
  }

  /** A steering message waits for the next model call. */
  record SteeringQueued(int checkpoint, String text) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.steeringQueued(this);
    }
  }

  /** A steering message went into the running turn's context. */
  record SteeringFolded(int checkpoint, String text) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.steeringFolded(this);
    }
  }

  /** A checkpoint was finished; it carries its file changes (and tag, if any). */
  record CheckpointCreated(CheckpointView checkpoint) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.checkpointCreated(this);
    }
  }

  /**
   * Undo, redo, goto, restore or a branch moved the tab. {@code pendingToolCall} was awaiting
   * approval in the target (approve it to continue); {@code draft} was in the input box when the
   * target was left.
   */
  record CheckpointRestored(RestoreOutcome result, Optional<ToolCallView> pendingToolCall, String draft) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.checkpointRestored(this);
    }
  }

  /**
   * A prompt sent from {@code from} did not branch there: files changed since clash with it
   * ({@code result}, not applied), so nothing changed and the prompt was not sent. Sending it again
   * with {@code force} overwrites them, keeping what they held under a rescued tag.
   */
  record BranchRefused(int from, String prompt, RestoreOutcome result) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.branchRefused(this);
    }

    /** One line for a user, saying what clashed and that nothing happened. */
    public String message() {
      return "Could not branch from #" + from + ": " + result.summary();
    }
  }

  /** The view cursor moved (or was asked to and stayed). */
  record ViewMoved(int checkpoint, boolean live) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.viewMoved(this);
    }
  }

  /**
   * A named save was made (or moved, when {@code movedFrom} names the checkpoint it named before);
   * {@code ref} is its tag, {@code refs/tags/waymark/<tab>/saved/<name>}.
   */
  record CheckpointSaved(CheckpointView checkpoint, String name, String ref, OptionalInt movedFrom)
      implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.checkpointSaved(this);
    }
  }

  /** The save {@code name} (tag {@code ref}) of checkpoint {@code checkpoint} was deleted; the checkpoint stays. */
  record SaveDeleted(int checkpoint, String name, String ref) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.saveDeleted(this);
    }
  }

  /** The answer to a List command, {@code #0} first. */
  record CheckpointsListed(List<CheckpointSummary> checkpoints, int live) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.checkpointsListed(this);
    }
  }

  /** The answer to a Diff command. */
  record DiffReady(DiffView diff) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.diffReady(this);
    }
  }

  /** The answer to a Compare command. */
  record ComparisonReady(ComparisonView comparison) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.comparisonReady(this);
    }
  }

  /** The answer to an Export command. */
  record Exported(ExportView export) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.exported(this);
    }
  }

  /** The model call failed before any answer and is retried after a wait, e.g. {@code rate limited, retrying in 12 s (2/3)}. */
  record Waiting(int checkpoint, String message) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.waiting(this);
    }
  }

  record Warning(String message) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.warning(this);
    }
  }

  /**
   * A hook (UserPromptSubmit) kept the prompt of {@code checkpoint} from the model: it was not sent, and the turn
   * ends cancelled. A policy's refusal, not the user's interruption, so a script can tell the two apart.
   */
  record PromptBlocked(int checkpoint, String message) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.promptBlocked(this);
    }
  }

  /**
   * Something went wrong, of {@code kind}; {@code submission} is the id {@code submit} returned for
   * the command that failed, when a command failed (not, say, a model call inside a turn).
   */
  record Error(ErrorKind kind, String message, OptionalLong submission) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.error(this);
    }

    public Error(ErrorKind kind, String message) {
      this(kind, message, OptionalLong.empty());
    }
  }

  /** The tab's model or approval mode changed (a SetMode or SetModel, or a session brought back). */
  record SettingsChanged(String model, String mode) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.settingsChanged(this);
    }
  }

  /** The tokens one model call of checkpoint {@code checkpoint}'s turn used, with the model that used them. */
  record UsageReported(int checkpoint, String model, TokenUsage usage) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.usageReported(this);
    }
  }
  /**
   * How much of the model's context window the conversation takes after checkpoint {@code checkpoint}:
   * from the provider's token counts, or {@code estimated} from its length (after a restore).
   * {@code window} is 0 when the model's window is unknown.
   */
  record ContextUsed(int checkpoint, long tokens, long window, boolean estimated) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.contextUsed(this);
    }

    /** The share of the window used, in percent; empty when the window is unknown. */
    public OptionalInt percent() {
      return window <= 0 ? OptionalInt.empty() : OptionalInt.of((int) Math.min(999, tokens * 100 / window));
    }
  }

  /**
   * Checkpoint {@code checkpoint} compacts the conversation by itself, as /compact does ({@code reason}
   * says why, for the user); the prompt it came before is sent in the next turn.
   */
  record Compacting(int checkpoint, String reason) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.compacting(this);
    }
  }

  /** A turn ended; {@code usage} is the last model call's, when the provider sent it. */
  record TurnFinished(int checkpoint, TurnStatus status, Optional<TokenUsage> usage) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.turnFinished(this);
    }
  }

  /**
   * A tab brought back from a saved session, delivered before any other event of it: what its
   * chat showed, checkpoint by checkpoint ({@code #0} left out), as the events that showed it
   * (a turn's start, reasoning, answer, tool calls with their previews and results, steering,
   * warnings, errors, its end); then where the tab stands, and the tool call that was waiting for
   * approval at live, proposed again.
   */
  record TabRestored(String tabId, List<RestoredCheckpoint> checkpoints, int live,
      List<Integer> livePath, Optional<ToolCallView> pendingToolCall) implements Event {
    @Override
    public void dispatch(Handler handler) {
      handler.tabRestored(this);
    }

    public TabRestored {
      checkpoints = List.copyOf(checkpoints);
      livePath = List.copyOf(livePath);
    }

    /** One checkpoint of a restored tab and the events its turn showed. */
    public record RestoredCheckpoint(int number, int parent, TurnStatus status, Instant created,
        boolean changedFiles, List<Event> history) {
      public RestoredCheckpoint {
        history = List.copyOf(history);
      }
    }
  }
}
