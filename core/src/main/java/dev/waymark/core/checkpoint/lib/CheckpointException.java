package dev.waymark.core.checkpoint.lib;

/**
 * A checkpoint operation could not be done; the message says why in words a user can act on, and
 * the {@link Kind} says what sort of failure it is, so that callers decide without reading the text.
 */
public class CheckpointException extends RuntimeException {
  /** What sort of failure: callers branch on this, never on the message. */
  public enum Kind {
    /** No such checkpoint, save, tab or path in the store. */
    NOT_FOUND,
    /** The request is already fulfilled or has nothing to act on (nothing to undo, files already so). */
    NOTHING_TO_DO,
    /** Something else holds what is asked for: a running checkpoint, another process's lock. */
    BUSY,
    /** The project's files changed in a way the operation will not overwrite. */
    CLASH,
    /** The request is not allowed or not valid (a path outside the project, a link, a bad name). */
    REFUSED,
    /** What the store should hold is missing or damaged. */
    LOST,
    /** Reading or writing the store or the project failed. */
    STORE_IO,
    /** The thread was interrupted before the operation could end. */
    INTERRUPTED,
    /** This machine or this version cannot do it (no copy-on-write layer, a newer store format). */
    UNSUPPORTED
  }

  private final Kind kind;

  public CheckpointException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public CheckpointException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
