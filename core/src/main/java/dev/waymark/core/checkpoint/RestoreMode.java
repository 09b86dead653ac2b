package dev.waymark.core.checkpoint;

/** What a restore moves: the files, the conversation (the live checkpoint), or both. */
public enum RestoreMode {
  BOTH(true, true),
  FILES(true, false),
  CONVERSATION(false, true);

  private final boolean files;
  private final boolean conversation;

  RestoreMode(boolean files, boolean conversation) {
    this.files = files;
    this.conversation = conversation;
  }

  public boolean movesFiles() {
    return files;
  }

  public boolean movesConversation() {
    return conversation;
  }
}
