package dev.waymark.core.tool;

/** What a tool does, which decides whether it needs approval. */
public enum ToolKind {
  READ,
  EDIT,
  /** A shell command that runs outside any sandbox, with the user's rights. */
  SHELL,
  /** A shell command confined to the sandbox (see {@code dev.waymark.core.sandbox}). */
  SANDBOXED_SHELL,
  /** A tool of an MCP server: asks like a shell command, since the server can do anything. */
  MCP,
  /** A request to the web ({@code web_fetch}): what it asks for can carry the project's data out, so it asks but in yolo. */
  NETWORK
}
