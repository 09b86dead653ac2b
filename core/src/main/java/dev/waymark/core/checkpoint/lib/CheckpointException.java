package dev.waymark.core.checkpoint.lib;

/** A checkpoint operation could not be done; the message says why in words a user can act on. */
public class CheckpointException extends RuntimeException {
  public CheckpointException(String message) {
    super(message);
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
