package dev.waymark.core.tool;

/** What a tool answers to the model; an error is a message the model can act on. */
public record ToolResult(String content, boolean isError) {
  public static ToolResult ok(String content) {
    return new ToolResult(content, false);
  }

  public static ToolResult error(String message) {
    return new ToolResult(message, true);
  }
}
