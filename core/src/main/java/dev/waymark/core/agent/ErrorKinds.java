package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.protocol.ErrorKind;

/** The protocol's kind of error for what the engine threw. */
final class ErrorKinds {
  private ErrorKinds() {}

  static ErrorKind of(CheckpointException e) {
    return switch (e.kind()) {
      case NOT_FOUND -> ErrorKind.NOT_FOUND;
      case NOTHING_TO_DO -> ErrorKind.NOTHING_TO_DO;
      case BUSY -> ErrorKind.BUSY;
      case CLASH -> ErrorKind.CLASH;
      case REFUSED -> ErrorKind.REFUSED;
      case LOST -> ErrorKind.LOST;
      case STORE_IO -> ErrorKind.STORE_IO;
      case INTERRUPTED -> ErrorKind.INTERRUPTED;
      case UNSUPPORTED -> ErrorKind.UNSUPPORTED;
    };
  }

  static ErrorKind of(ModelException e) {
    return e.kind() == ModelException.Kind.CONTEXT_TOO_LONG ? ErrorKind.CONTEXT_TOO_LONG : ErrorKind.MODEL_FAILED;
  }
}
