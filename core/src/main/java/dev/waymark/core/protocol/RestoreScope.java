package dev.waymark.core.protocol;

/** What a {@link Command.Restore} moves: the files, the conversation (the live checkpoint), or both. */
public enum RestoreScope {
  BOTH,
  FILES,
  CONVERSATION
}
