package dev.waymark.core.agent;

import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.protocol.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Messages typed while a turn runs, and which turn is running: a steer waits here until the
 * turn's next model call; one that came after the last call is handed back when the turn ends.
 */
final class SteeringQueue {
  private final Consumer<Event> emit;
  private final Object lock = new Object();
  private RunningTurn running; // guarded by lock
  private boolean accepting; // guarded by lock
  private final List<String> queued = new ArrayList<>(); // guarded by lock

  SteeringQueue(Consumer<Event> emit) {
    this.emit = emit;
  }

  void started(RunningTurn turn) {
    synchronized (lock) {
      running = turn;
      accepting = true;
      queued.clear();
    }
  }

  Optional<RunningTurn> current() {
    synchronized (lock) {
      return Optional.ofNullable(running);
    }
  }

  /** Queues {@code text} for the running turn; false when no turn takes it. */
  boolean offer(String text) {
    synchronized (lock) {
      if (running == null || !accepting) {
        return false;
      }
      queued.add(text);
      emit.accept(new Event.SteeringQueued(running.checkpoint, TypedPrompt.shown(text))); // a custom command as typed
      return true;
    }
  }

  /** Adds what was queued to the turn's messages, before its next model call. */
  void foldInto(RunningTurn turn, List<ChatMessage> messages) {
    List<String> folded;
    synchronized (lock) {
      folded = new ArrayList<>(queued);
      queued.clear();
    }
    for (String text : folded) {
      Conversation.append(messages, new ChatMessage.User(text));
      emit.accept(new Event.SteeringFolded(turn.checkpoint, TypedPrompt.shown(text)));
    }
  }

  /** After an answer without tool calls: stops taking steers unless one came in meanwhile (then false: call again). */
  boolean closeIfEmpty() {
    synchronized (lock) {
      if (queued.isEmpty()) {
        accepting = false;
        return true;
      }
      return false;
    }
  }

  /** The turn ended: what was queued too late for it. */
  List<String> end() {
    synchronized (lock) {
      List<String> leftover = new ArrayList<>(queued);
      queued.clear();
      accepting = false;
      running = null;
      return leftover;
    }
  }
}
