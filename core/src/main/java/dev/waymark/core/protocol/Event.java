package dev.waymark.core.protocol;

import java.util.Optional;

/** What a tab tells its front ends, in order. Immutable plain values: no engine type leaks out. */
public sealed interface Event {
  /** A turn began in checkpoint {@code checkpoint}, a child of {@code parent}. */
  record TurnStarted(int checkpoint, int parent, String prompt) implements Event {}

  /** Streamed reasoning of a reasoning model, before its answer or tool calls. */
  record ReasoningDelta(int checkpoint, String text) implements Event {}

  /** Streamed text of the model's answer. */
  record AssistantDelta(int checkpoint, String text) implements Event {}

  /**
   * The model asked for a tool call; when {@code needsApproval}, it waits for Approve or Deny.
   * {@code preview} is the unified diff an edit would make, or empty.
   */
  record ToolCallProposed(int checkpoint, ToolCallView call, String summary, String preview, boolean needsApproval)
      implements Event {}

  /**
   * A tool call ended (ran, failed, or was denied); {@code changedPaths} are the project files it
   * changed and recorded in the checkpoint, sorted (empty when unknown, e.g. in a restored chat).
   */
  record ToolCallFinished(int checkpoint, ToolCallView call, String result, boolean isError, java.util.List<String> changedPaths)
      implements Event {
    public ToolCallFinished {
      changedPaths = java.util.List.copyOf(changedPaths);
    }

    public ToolCallFinished(int checkpoint, ToolCallView call, String result, boolean isError) {
      this(checkpoint, call, result, isError, java.util.List.of());
    }
  }

  /**
   * What the running call {@code id} printed since its last {@code ToolOutput} (a shell command's
   * output as it comes, a few times a second at most); its {@link ToolCallFinished} follows and
   * holds the output the model gets, which is what stays.
   */
  record ToolOutput(int checkpoint, String id, String text) implements Event {}

  /** A steering message waits for the next model call. */
  record SteeringQueued(int checkpoint, String text) implements Event {}

  /** A steering message went into the running turn's context. */
  record SteeringFolded(int checkpoint, String text) implements Event {}

  /** A checkpoint was finished; it carries its file changes (and tag, if any). */
  record CheckpointCreated(CheckpointView checkpoint) implements Event {}

  /**
   * Undo, redo, goto, restore or a branch moved the tab. {@code pendingToolCall} was awaiting
   * approval in the target (approve it to continue); {@code draft} was in the input box when the
   * target was left.
   */
  record CheckpointRestored(RestoreOutcome result, Optional<ToolCallView> pendingToolCall, String draft) implements Event {}

  /**
   * A prompt sent from {@code from} did not branch there: files changed since clash with it
   * ({@code result}, not applied), so nothing changed and the prompt was not sent. Sending it again
   * with {@code force} overwrites them, keeping what they held under a rescued tag.
   */
  record BranchRefused(int from, String prompt, RestoreOutcome result) implements Event {
    /** One line for a user, saying what clashed and that nothing happened. */
    public String message() {
      return "Could not branch from #" + from + ": " + result.summary();
    }
  }

  /** The view cursor moved (or was asked to and stayed). */
  record ViewMoved(int checkpoint, boolean live) implements Event {}

  /**
   * A named save was made (or moved, when {@code movedFrom} names the checkpoint it named before);
   * {@code ref} is its tag, {@code refs/tags/waymark/<tab>/saved/<name>}.
   */
  record CheckpointSaved(CheckpointView checkpoint, String name, String ref, java.util.OptionalInt movedFrom)
      implements Event {}

  /** The save {@code name} (tag {@code ref}) of checkpoint {@code checkpoint} was deleted; the checkpoint stays. */
  record SaveDeleted(int checkpoint, String name, String ref) implements Event {}

  /** The answer to a List command, {@code #0} first. */
  record CheckpointsListed(java.util.List<CheckpointSummary> checkpoints, int live) implements Event {}

  /** The answer to a Diff command. */
  record DiffReady(DiffView diff) implements Event {}

  /** The answer to a Compare command. */
  record ComparisonReady(ComparisonView comparison) implements Event {}

  /** The answer to an Export command. */
  record Exported(ExportView export) implements Event {}

  /** The model call failed before any answer and is retried after a wait, e.g. {@code rate limited, retrying in 12 s (2/3)}. */
  record Waiting(int checkpoint, String message) implements Event {}

  record Warning(String message) implements Event {}

  /**
   * Something went wrong, of {@code kind}; {@code submission} is the id {@code submit} returned for
   * the command that failed, when a command failed (not, say, a model call inside a turn).
   */
  record Error(ErrorKind kind, String message, java.util.OptionalLong submission) implements Event {
    public Error(ErrorKind kind, String message) {
      this(kind, message, java.util.OptionalLong.empty());
    }
  }

  /** The tab's model or approval mode changed (a SetMode or SetModel, or a session brought back). */
  record SettingsChanged(String model, String mode) implements Event {}

  /** The tokens one model call of checkpoint {@code checkpoint}'s turn used, with the model that used them. */
  record UsageReported(int checkpoint, String model, TokenUsage usage) implements Event {}
  /**
   * How much of the model's context window the conversation takes after checkpoint {@code checkpoint}:
   * from the provider's token counts, or {@code estimated} from its length (after a restore).
   * {@code window} is 0 when the model's window is unknown.
   */
  record ContextUsed(int checkpoint, long tokens, long window, boolean estimated) implements Event {
    /** The share of the window used, in percent; empty when the window is unknown. */
    public java.util.OptionalInt percent() {
      return window <= 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of((int) Math.min(999, tokens * 100 / window));
    }
  }

  /**
   * Checkpoint {@code checkpoint} compacts the conversation by itself, as /compact does ({@code reason}
   * says why, for the user); the prompt it came before is sent in the next turn.
   */
  record Compacting(int checkpoint, String reason) implements Event {}

  /** A turn ended; {@code usage} is the last model call's, when the provider sent it. */
  record TurnFinished(int checkpoint, TurnStatus status, Optional<TokenUsage> usage) implements Event {}

  /**
   * A tab brought back from a saved session, delivered before any other event of it: what its
   * chat showed, checkpoint by checkpoint ({@code #0} left out), as the events that showed it
   * (a turn's start, reasoning, answer, tool calls with their previews and results, steering,
   * warnings, errors, its end); then where the tab stands, and the tool call that was waiting for
   * approval at live, proposed again.
   */
  record TabRestored(String tabId, java.util.List<RestoredCheckpoint> checkpoints, int live,
      java.util.List<Integer> livePath, Optional<ToolCallView> pendingToolCall) implements Event {
    public TabRestored {
      checkpoints = java.util.List.copyOf(checkpoints);
      livePath = java.util.List.copyOf(livePath);
    }

    /** One checkpoint of a restored tab and the events its turn showed. */
    public record RestoredCheckpoint(int number, int parent, TurnStatus status, java.time.Instant created,
        boolean changedFiles, java.util.List<Event> history) {
      public RestoredCheckpoint {
        history = java.util.List.copyOf(history);
      }
    }
  }
}
