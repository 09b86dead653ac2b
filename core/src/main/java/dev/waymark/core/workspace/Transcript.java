package dev.waymark.core.workspace;

import dev.waymark.core.protocol.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What each checkpoint's turn showed, recorded from the tab's events as a front end received
 * them, so that a session brought back shows the same chat: the turn's start, reasoning and
 * answer text (streamed pieces joined), tool calls with their previews and results, steering,
 * warnings and errors while it ran, and how it ended. Thread-safe: recorded on the tab's event
 * thread, read by the saver.
 */
final class Transcript {
  private final Map<Integer, List<Event>> turns = new HashMap<>();
  private int running = -1; // the checkpoint whose turn runs, or -1

  Transcript(Map<Integer, List<Event>> restored) {
    restored.forEach((n, events) -> turns.put(n, new ArrayList<>(events)));
  }

  synchronized void record(Event event) {
    if (event instanceof Event.TurnStarted started) {
      running = started.checkpoint();
      List<Event> turn = new ArrayList<>();
      turn.add(started);
      turns.put(running, turn);
      return;
    }
    if (running < 0) {
      if (event instanceof Event.CheckpointRestored restored && madeCheckpoint(restored) >= 0) {
        // a revert or one-sided restore is a checkpoint of its own: its notice is what it showed
        turns.put(madeCheckpoint(restored), new ArrayList<>(List.of(event)));
      }
      return; // outside a turn: answers to commands, not the chat of a checkpoint
    }
    List<Event> turn = turns.get(running);
    Event last = turn.get(turn.size() - 1);
    if (event instanceof Event.AssistantDelta delta) {
      if (last instanceof Event.AssistantDelta before) {
        turn.set(turn.size() - 1, new Event.AssistantDelta(before.checkpoint(), before.text() + delta.text()));
      } else {
        turn.add(delta);
      }
    } else if (event instanceof Event.ReasoningDelta delta) {
      if (last instanceof Event.ReasoningDelta before) {
        turn.set(turn.size() - 1, new Event.ReasoningDelta(before.checkpoint(), before.text() + delta.text()));
      } else {
        turn.add(delta);
      }
    } else if (event instanceof Event.ToolCallProposed proposed) {
      // shown again as asked, never as waiting: a call still waiting at live is proposed anew
      turn.add(new Event.ToolCallProposed(proposed.checkpoint(), proposed.call(), proposed.summary(), proposed.preview(), false));
    } else if (event instanceof Event.ToolCallFinished || event instanceof Event.SteeringFolded
        || event instanceof Event.Warning || event instanceof Event.Error) {
      turn.add(event);
    } else if (event instanceof Event.TurnFinished finished) {
      turn.add(new Event.TurnFinished(finished.checkpoint(), finished.status(), Optional.empty()));
      running = -1;
    }
  }

  /** The checkpoint a restore made (a revert, a one-sided or per-file restore), or -1 for a move. */
  static int madeCheckpoint(Event.CheckpointRestored restored) {
    var result = restored.result();
    int last = result.livePath().isEmpty() ? -1 : result.livePath().get(result.livePath().size() - 1);
    return result.applied() && last != result.target() ? last : -1;
  }

  /** A copy of every checkpoint's events. */
  synchronized Map<Integer, List<Event>> copy() {
    Map<Integer, List<Event>> copy = new HashMap<>();
    turns.forEach((n, events) -> copy.put(n, List.copyOf(events)));
    return copy;
  }
}
