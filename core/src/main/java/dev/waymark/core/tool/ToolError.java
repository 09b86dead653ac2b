package dev.waymark.core.tool;

/** A tool call that cannot be done as asked; its message goes back to the model as an error result. */
final class ToolError extends Exception {
  ToolError(String message) {
    super(message, null, false, false);
  }
}
