package dev.waymark.core.mcp;

/** A server that could not be started, reached or used; the message says so in words. */
public final class McpFailure extends Exception {
  public McpFailure(String message) {
    super(message, null, false, false);
  }
}
