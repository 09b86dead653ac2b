package dev.waymark.core.tool;

/** What a tool answers to the model; an error is a message the model can act on. */
public record ToolResult(String content, boolean isError) {
  /**
   * How the result of a tool whose file changes could not be applied or recorded begins (an error
   * whatever else it says): where a one-line view shows it, and what {@code exec} fails on.
   */
  public static final String NOT_RECORDED = "[not recorded: ";

  public static ToolResult ok(String content) {
    return new ToolResult(content, false);
  }

  public static ToolResult error(String message) {
    return new ToolResult(message, true);
  }
}
