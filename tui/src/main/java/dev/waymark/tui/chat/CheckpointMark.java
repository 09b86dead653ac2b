package dev.waymark.tui.chat;

import dev.waymark.core.checkpoint.CheckpointStatus;

/** What the rail and the chat need to know of one checkpoint. */
public record CheckpointMark(int number, int parent, CheckpointStatus status, boolean hasEdits, boolean onLivePath) {
  CheckpointMark withStatus(CheckpointStatus newStatus, boolean edits) {
    return new CheckpointMark(number, parent, newStatus, edits, onLivePath);
  }

  CheckpointMark onPath(boolean on) {
    return on == onLivePath ? this : new CheckpointMark(number, parent, status, hasEdits, on);
  }
}
