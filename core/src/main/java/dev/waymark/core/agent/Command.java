package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.RestoreMode;

/**
 * What a front end (the UI, {@code waymark exec}, a test) asks of a tab. Commands go in through
 * {@link TabSession#submit}; everything that follows comes back as {@link Event}s.
 */
public sealed interface Command {
  /**
   * Summarises the live conversation into one message, kept as a checkpoint of its own: later
   * turns send the summary instead of the turns before it; undoing that checkpoint brings them back.
   */
  record Compact() implements Command {}

  /**
   * A new prompt: opens the next checkpoint and runs a turn. While the view cursor stands on an
   * earlier checkpoint, files and conversation go back there first and the new one branches from it.
   */
  record SendPrompt(String text) implements Command {}

  /** A prompt that branches from checkpoint {@code from}: as if sent while viewing it. */
  record Branch(int from, String text) implements Command {}

  /** What sits unsent in the input box now; it comes back when a restore returns to this checkpoint. */
  record KeepDraft(String text) implements Command {}

  /** Moves the read-only view cursor; nothing on disk changes. Answered by {@link Event.ViewMoved}. */
  record View(Direction direction, int checkpoint) implements Command {
    public enum Direction { BACK, FORWARD, AT, LIVE }

    public static View back() {
      return new View(Direction.BACK, -1);
    }

    public static View forward() {
      return new View(Direction.FORWARD, -1);
    }

    public static View at(int checkpoint) {
      return new View(Direction.AT, checkpoint);
    }

    public static View live() {
      return new View(Direction.LIVE, -1);
    }
  }

  /** A message typed while a turn runs: folded into it before its next model call. */
  record Steer(String text) implements Command {}

  /** Stops the running turn; what it changed stays recorded and undoable. */
  record Cancel() implements Command {}

  /**
   * Lets a proposed tool call run; {@code forSession} allows that tool for the rest of the session.
   * A call proposed again by a restore runs in a new checkpoint that continues the turn.
   */
  record Approve(String toolCallId, boolean forSession) implements Command {}

  /** Refuses a proposed tool call; the model is told, and the turn goes on. */
  record Deny(String toolCallId, String reason) implements Command {}

  /**
   * Undo one checkpoint, or back to {@code to} when it is not negative. With {@code force}, files
   * whose later edits clash are overwritten (what they held is kept under a rescued tag); so too
   * for redo and goto.
   */
  record Undo(int to, boolean force) implements Command {
    public Undo(int to) {
      this(to, false);
    }

    public static Undo one() {
      return new Undo(-1);
    }
  }

  record Redo(boolean force) implements Command {
    public Redo() {
      this(false);
    }
  }

  record GoTo(int checkpoint, boolean force) implements Command {
    public GoTo(int checkpoint) {
      this(checkpoint, false);
    }
  }

  /** Goes to the checkpoint saved under {@code name}, as {@link GoTo} does. */
  record GoToSaved(String name, boolean force) implements Command {}

  record Restore(int checkpoint, RestoreMode mode, boolean force) implements Command {}

  record Save(String name) implements Command {}

  /** How the files on disk differ from a checkpoint; a negative number means the live one. */
  record Diff(int checkpoint) implements Command {}

  /** Asks for a summary of every checkpoint; answered by {@link Event.CheckpointsListed}. */
  record List() implements Command {}
}
