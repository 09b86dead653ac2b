package dev.waymark.core.tool;

/** Which tool calls wait for the user's approval. */
public enum ApprovalMode {
  /** Edits and shell commands wait for approval (the default). */
  ASK,
  /** Edits run; shell commands wait. */
  AUTO_EDIT,
  /** Edits and sandboxed shell commands run; a command outside the sandbox waits. */
  AUTO,
  /** Everything runs. */
  YOLO;

  public boolean needsApproval(ToolKind kind) {
    switch (kind) {
      case READ:
        return false;
      case EDIT:
        return this == ASK;
      case SANDBOXED_SHELL:
        return this != AUTO && this != YOLO;
      default:
        return this != YOLO;
    }
  }

  /** Parses {@code ask}, {@code auto-edit}, {@code auto} or {@code yolo}. */
  public static ApprovalMode parse(String text) {
    switch (text.toLowerCase(java.util.Locale.ROOT)) {
      case "ask":
        return ASK;
      case "auto-edit":
      case "auto_edit":
        return AUTO_EDIT;
      case "auto":
        return AUTO;
      case "yolo":
        return YOLO;
      default:
        throw new IllegalArgumentException("Unknown approval mode \"" + text + "\": use ask, auto-edit, auto or yolo");
    }
  }
}
