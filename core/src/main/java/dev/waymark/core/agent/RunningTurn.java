package dev.waymark.core.agent;

import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ToolCall;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** The state of the running turn that other threads touch: its cancellation and the call awaiting approval. */
final class RunningTurn {
  /** An answer to a proposed tool call. */
  record Decision(boolean allow, boolean forSession, String reason) {}

  final int checkpoint;
  final Cancellation cancellation = new Cancellation();
  int steps; // tool calls run in this turn; only the turn's thread touches it
  Optional<ChatResponse.Usage> usage = Optional.empty(); // the last call's; turn thread only
  volatile ToolCall pendingApproval;
  /** Whether this turn made a compaction (a /compact, or one of its own); the next turn may not make one by itself. */
  volatile boolean compacted;
  /** The tokens the conversation takes after the turn, as the provider counted them; -1 when it sent no counts. */
  volatile long contextTokens = -1;
  /** Whether the turn may turn into a compaction when the server says the conversation is too long. */
  boolean mayCompactWhenTooLong;
  private CompletableFuture<Decision> decision; // guarded by this

  RunningTurn(int checkpoint) {
    this.checkpoint = checkpoint;
  }

  void cancel() {
    cancellation.cancel();
    synchronized (this) {
      if (decision != null) {
        decision.complete(null);
      }
    }
  }

  /** Registers {@code call} as waiting for Approve or Deny. */
  CompletableFuture<Decision> expectDecision(ToolCall call) {
    CompletableFuture<Decision> waiting = new CompletableFuture<>();
    synchronized (this) {
      decision = waiting;
      pendingApproval = call;
    }
    cancellation.onCancel(() -> waiting.complete(null));
    return waiting;
  }

  /** Waits for the answer; null when the turn was cancelled meanwhile. */
  Decision awaitDecision(CompletableFuture<Decision> waiting) {
    try {
      Decision d = waiting.get();
      if (d != null) {
        pendingApproval = null;
      }
      return d;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException e) {
      return null;
    } finally {
      synchronized (this) {
        decision = null;
      }
    }
  }

  synchronized boolean resolve(String toolCallId, Decision d) {
    ToolCall pending = pendingApproval;
    if (decision == null || pending == null || !pending.id().equals(toolCallId)) {
      return false;
    }
    return decision.complete(d);
  }
}
