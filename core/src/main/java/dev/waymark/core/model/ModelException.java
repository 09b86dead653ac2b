package dev.waymark.core.model;

/** A model call failed; the message says what to do about it in a user's words. */
public class ModelException extends RuntimeException {
  /** Why: decides retries and the hint shown. */
  public enum Kind {
    AUTHENTICATION, NOT_FOUND, RATE_LIMITED, SERVER, NETWORK, PROTOCOL, CANCELLED, BAD_REQUEST,
    /** The account's quota or credit is used up: waiting does not help, so never retried. */
    QUOTA,
    /** The model declined to answer (an OpenAI {@code refusal}). */
    REFUSED,
    /** The conversation no longer fits the model's context window. */
    CONTEXT_TOO_LONG
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
