package dev.waymark.core.session;

/** A session that cannot be saved, found or read; the message says which and why, for a user. */
public final class SessionException extends RuntimeException {
  public SessionException(String message) {
    super(message);
  }

  public SessionException(String message, Throwable cause) {
    super(message, cause);
  }
}
