package dev.waymark.core.tool;

import dev.waymark.core.protocol.ErrorKind;
import java.util.Optional;

/**
 * What a tool answers to the model; an error is a message the model can act on, and its kind
 * (empty for a result that is no error) is what front ends branch on.
 */
public record ToolResult(String content, Optional<ErrorKind> errorKind) {
  /**
   * How the result of a tool whose file changes could not be applied or recorded begins (an error
   * whatever else it says): where a one-line view shows it, and what {@code exec} fails on.
   */
  public static final String NOT_RECORDED = "[not recorded: ";

  public static ToolResult ok(String content) {
    return new ToolResult(content, Optional.empty());
  }

  public static ToolResult error(ErrorKind kind, String message) {
    return new ToolResult(message, Optional.of(kind));
  }

  /** Whether the call failed: the model is told so. */
  public boolean isError() {
    return errorKind.isPresent();
  }
}
