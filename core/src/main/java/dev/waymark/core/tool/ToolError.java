package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.ErrorKind;

/** A tool call that cannot be done as asked; its message goes back to the model as an error result. */
final class ToolError extends Exception {
  private final ErrorKind kind;

  ToolError(ErrorKind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  /** The protocol's kind for what the checkpoint engine threw: the two name their kinds alike. */
  static ErrorKind kindOf(CheckpointException e) {
    return ErrorKind.valueOf(e.kind().name());
  }

  /** What sort of failure it is, for front ends; the model reads only the message. */
  ErrorKind kind() {
    return kind;
  }
}
