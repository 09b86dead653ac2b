package dev.waymark.core.tool;

/** Which tool calls wait for the user's approval. */
public enum ApprovalMode {
  /** Edits and shell commands wait for approval (the default). */
  ASK,
  /** Edits run; shell commands wait. */
  AUTO_EDIT,
  /** Everything runs. */
  YOLO;

  public boolean needsApproval(ToolKind kind) {
    switch (kind) {
      case READ:
        return false;
      case EDIT:
        return this == ASK;
      default:
        return this != YOLO;
    }
  }

  /** Parses {@code ask}, {@code auto-edit} or {@code yolo}. */
  public static ApprovalMode parse(String text) {
    switch (text.toLowerCase(java.util.Locale.ROOT)) {
      case "ask":
        return ASK;
      case "auto-edit":
      case "auto_edit":
        return AUTO_EDIT;
      case "yolo":
        return YOLO;
      default:
        throw new IllegalArgumentException("Unknown approval mode \"" + text + "\": use ask, auto-edit or yolo");
    }
  }
}
