package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.RestoreMode;

/**
 * What a front end (the UI, {@code waymark exec}, a test) asks of a tab. Commands go in through
 * {@link TabSession#submit}; everything that follows comes back as {@link Event}s.
 */
public sealed interface Command {
  /** A new prompt: opens the next checkpoint and runs a turn. */
  record SendPrompt(String text) implements Command {}

  /** A message typed while a turn runs: folded into it before its next model call. */
  record Steer(String text) implements Command {}

  /** Stops the running turn; what it changed stays recorded and undoable. */
  record Cancel() implements Command {}

  /** Lets a proposed tool call run; {@code forSession} allows that tool for the rest of the session. */
  record Approve(String toolCallId, boolean forSession) implements Command {}

  /** Refuses a proposed tool call; the model is told, and the turn goes on. */
  record Deny(String toolCallId, String reason) implements Command {}

  /** Undo one checkpoint, or back to {@code to} when it is not negative. */
  record Undo(int to) implements Command {
    public static Undo one() {
      return new Undo(-1);
    }
  }

  record Redo() implements Command {}

  record GoTo(int checkpoint) implements Command {}

  record Restore(int checkpoint, RestoreMode mode, boolean force) implements Command {}

  record Save(String name) implements Command {}

  record Diff(int checkpoint) implements Command {}
}
