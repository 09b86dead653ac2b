package dev.waymark.core.model;

/** A model call failed; the message says what to do about it in a user's words. */
public class ModelException extends RuntimeException {
  /** Why: decides retries and the hint shown. */
  public enum Kind {
    AUTHENTICATION, NOT_FOUND, RATE_LIMITED, SERVER, NETWORK, PROTOCOL, CANCELLED, BAD_REQUEST
  }

  private final Kind kind;

  public ModelException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public ModelException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
