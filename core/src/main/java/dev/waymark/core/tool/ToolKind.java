package dev.waymark.core.tool;

/** What a tool does, which decides whether it needs approval. */
public enum ToolKind {
  READ,
  EDIT,
  SHELL
}
