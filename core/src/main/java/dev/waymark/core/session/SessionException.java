package dev.waymark.core.session;

import dev.waymark.core.protocol.ErrorKind;

/**
 * A session that cannot be saved, found or read; the message says which and why, for a user, and
 * the kind what sort of failure it is, for callers.
 */
public final class SessionException extends RuntimeException {
  private final ErrorKind kind;

  public SessionException(ErrorKind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public SessionException(ErrorKind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public ErrorKind kind() {
    return kind;
  }
}
