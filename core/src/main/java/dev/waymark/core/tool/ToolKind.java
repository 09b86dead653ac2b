package dev.waymark.core.tool;

/** What a tool does, which decides whether it needs approval. */
public enum ToolKind {
  READ,
  EDIT,
  SHELL,
  /** A tool of an MCP server: asks like a shell command, since the server can do anything. */
  MCP
}
