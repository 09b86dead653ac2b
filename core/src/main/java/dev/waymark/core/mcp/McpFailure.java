package dev.waymark.core.mcp;

import dev.waymark.core.protocol.ErrorKind;

/** A server that could not be started, reached or used; the message says so in words, the kind for front ends. */
public final class McpFailure extends Exception {
  private final ErrorKind kind;

  public McpFailure(ErrorKind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  /** What sort of failure it is. */
  public ErrorKind kind() {
    return kind;
  }
}
