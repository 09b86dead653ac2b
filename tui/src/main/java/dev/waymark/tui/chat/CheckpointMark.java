package dev.waymark.tui.chat;

import dev.waymark.core.protocol.TurnStatus;


/** What the rail and the chat need to know of one checkpoint. */
public record CheckpointMark(int number, int parent, TurnStatus status, boolean hasEdits, boolean onLivePath) {
  CheckpointMark withStatus(TurnStatus newStatus, boolean edits) {
    return new CheckpointMark(number, parent, newStatus, edits, onLivePath);
  }

  CheckpointMark onPath(boolean on) {
    return on == onLivePath ? this : new CheckpointMark(number, parent, status, hasEdits, on);
  }
}
