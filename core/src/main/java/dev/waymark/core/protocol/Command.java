package dev.waymark.core.protocol;

import java.util.OptionalInt;

/**
 * What a front end (the UI, {@code waymark exec}, a test) asks of a tab. Commands go in through
 * the tab's {@code submit}; everything that follows comes back as {@link Event}s.
 */
public sealed interface Command {
  /** Calls the method of {@code handler} for this command's type. */
  void dispatch(Handler handler);

  /**
   * One method per command: a new command does not compile until every handler (the tab's
   * dispatch) says what it does, so no command can silently do nothing.
   */
  interface Handler {
    void compact(Compact command);

    void sendPrompt(SendPrompt command);

    void branch(Branch command);

    void keepDraft(KeepDraft command);

    void view(View command);

    void steer(Steer command);

    void cancel(Cancel command);

    void approve(Approve command);

    void deny(Deny command);

    void undo(Undo command);

    void redo(Redo command);

    void goTo(GoTo command);

    void goToSaved(GoToSaved command);

    void restore(Restore command);

    void restoreFiles(RestoreFiles command);

    void revert(Revert command);

    void save(Save command);

    void deleteSave(DeleteSave command);

    void diff(Diff command);

    void compare(Compare command);

    void take(Take command);

    void export(Export command);

    void list(List command);

    void setMode(SetMode command);

    void setModel(SetModel command);

    void runShell(RunShell command);

    void restoreRescued(RestoreRescued command);

    void land(Land command);

    void discard(Discard command);
  }

  /**
   * Lands an isolated tab's view on the project, as a new checkpoint (merged three-way where the
   * project changed since; clashes keep the user's file, the tab's kept under a rescued tag); the
   * tab then goes on as a normal tab, or, with {@code keepIsolated}, as an isolated tab with an
   * empty view over the landed project.
   */
  record Land(boolean keepIsolated) implements Command {
    /** A land after which the tab goes on as a normal tab. */
    public Land() {
      this(false);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.land(this);
    }
  }

  /** Empties an isolated tab's view, as a new checkpoint: undo brings what it held back. */
  record Discard() implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.discard(this);
    }
  }

  /**
   * Sets the tab's approval mode by its name ({@code plan}, {@code ask}, {@code auto-edit},
   * {@code yolo}): it applies from the next tool call, in a running turn too.
   */
  record SetMode(String mode) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.setMode(this);
    }
  }

  /** Sets the model the tab's next turn asks for, by the name its provider knows it by; a running turn keeps its own. */
  record SetModel(String model) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.setModel(this);
    }
  }

  /**
   * Summarises the live conversation into one message, kept as a checkpoint of its own: later
   * turns send the summary instead of the turns before it; undoing that checkpoint brings them back.
   */
  record Compact() implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.compact(this);
    }
  }

  /**
   * A new prompt: opens the next checkpoint under the live one and runs a turn, wherever the view
   * cursor stands. A front end that shows an earlier checkpoint sends {@link Branch} instead, with
   * the checkpoint it shows, so a view moved meanwhile cannot change where the prompt goes.
   */
  /**
   * {@code !command} typed by the user: a checkpoint of its own that runs the command as the agent's
   * run_shell would (sandboxed where commands are, recorded, undone with the checkpoint), shows its
   * output, and gives it to the model with the next prompt; the model is not called.
   */
  record RunShell(String command) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.runShell(this);
    }
  }

  /**
   * Puts back the file versions kept under the tab's rescued tag {@code name} (what a {@code --force}
   * overwrote), every other file untouched, as a new checkpoint; {@code force}: overwrite clashing edits.
   */
  record RestoreRescued(String name, boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.restoreRescued(this);
    }
  }

  /**
   * A prompt; {@code typed}: what the user typed for it when that is not {@code text} (a custom
   * command, {@code /review src/Foo.java}, whose expanded prompt is {@code text}), shown instead of
   * it in the chat, {@code /rewind}, undo's draft and the session's title; null when it is.
   */
  record SendPrompt(String text, String typed) implements Command {
    public SendPrompt(String text) {
      this(text, null);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.sendPrompt(this);
    }
  }

  /**
   * A prompt sent while viewing checkpoint {@code from}: files and conversation go back there
   * first, and the new checkpoint branches from it (from the live one, it just continues).
   * {@code force}: where files changed since clash with {@code from}, overwrite them anyway (what
   * they held is kept under a rescued tag); without it such a branch is refused, nothing changed.
   * {@code typed} as {@link SendPrompt}'s.
   */
  record Branch(int from, String text, boolean force, String typed) implements Command {
    public Branch(int from, String text) {
      this(from, text, false);
    }

    public Branch(int from, String text, boolean force) {
      this(from, text, force, null);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.branch(this);
    }
  }

  /** What sits unsent in the input box now; it comes back when a restore returns to this checkpoint. */
  record KeepDraft(String text) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.keepDraft(this);
    }
  }

  /**
   * Moves the read-only view cursor; nothing on disk changes. Answered by {@link Event.ViewMoved}.
   * {@code checkpoint} is given exactly for {@link Direction#AT}.
   */
  record View(Direction direction, OptionalInt checkpoint) implements Command {
    public View {
      if (direction == null) {
        throw new IllegalArgumentException("a view move needs a direction");
      }
      if ((direction == Direction.AT) != checkpoint.isPresent()) {
        throw new IllegalArgumentException(direction == Direction.AT
            ? "viewing a checkpoint needs its number" : "only a view at a checkpoint takes its number");
      }
    }

    @Override
    public void dispatch(Handler handler) {
      handler.view(this);
    }

    public enum Direction { BACK, FORWARD, AT, LIVE }

    public static View back() {
      return new View(Direction.BACK, OptionalInt.empty());
    }

    public static View forward() {
      return new View(Direction.FORWARD, OptionalInt.empty());
    }

    public static View at(int checkpoint) {
      return new View(Direction.AT, OptionalInt.of(checkpoint));
    }

    public static View live() {
      return new View(Direction.LIVE, OptionalInt.empty());
    }
  }

  /** A message typed while a turn runs: folded into it before its next model call. */
  record Steer(String text, String typed) implements Command {
    public Steer(String text) {
      this(text, null);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.steer(this);
    }
  }

  /** Stops the running turn; what it changed stays recorded and undoable. */
  record Cancel() implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.cancel(this);
    }
  }

  /**
   * Lets a proposed tool call run; {@code forSession} also allows calls like it for the rest of the
   * session: for a shell command the commands starting with its safe prefix (else that exact
   * command), for another tool the tool. A call proposed again by a restore runs in a new
   * checkpoint that continues the turn.
   */
  record Approve(String toolCallId, boolean forSession) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.approve(this);
    }
  }

  /** Refuses a proposed tool call; the model is told, with {@code reason} when it is not blank, and the turn goes on. */
  record Deny(String toolCallId, String reason) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.deny(this);
    }
  }

  /**
   * Undo one checkpoint, or back to {@code to} when given. With {@code force}, files whose later
   * edits clash are overwritten (what they held is kept under a rescued tag); so too for redo and
   * goto.
   */
  record Undo(OptionalInt to, boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.undo(this);
    }

    public static Undo one() {
      return new Undo(OptionalInt.empty(), false);
    }

    public static Undo to(int checkpoint) {
      return new Undo(OptionalInt.of(checkpoint), false);
    }
  }

  record Redo(boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.redo(this);
    }

    public Redo() {
      this(false);
    }
  }

  record GoTo(int checkpoint, boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.goTo(this);
    }

    public GoTo(int checkpoint) {
      this(checkpoint, false);
    }
  }

  /** Goes to the checkpoint saved under {@code name}, as {@link GoTo} does. */
  record GoToSaved(String name, boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.goToSaved(this);
    }
  }

  /** Restores the files, the conversation or both ({@code scope}) to {@code checkpoint}. */
  record Restore(int checkpoint, RestoreScope scope, boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.restore(this);
    }
  }

  /**
   * Puts {@code paths} back to how {@code checkpoint} holds them, every other file untouched, as a
   * new checkpoint on the live path.
   */
  record RestoreFiles(int checkpoint, java.util.List<String> paths, boolean force) implements Command {
    public RestoreFiles {
      paths = java.util.List.copyOf(paths);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.restoreFiles(this);
    }
  }

  /**
   * Takes back what checkpoints {@code first} to {@code last} changed (one checkpoint when they are
   * equal; only {@code paths} when some are given), keeping every later change, as a new checkpoint
   * on the live path; the model is told in one message. With {@code force}, clashing files are
   * overwritten and what they held is kept under a rescued tag.
   */
  record Revert(int first, int last, java.util.List<String> paths, boolean force) implements Command {
    public Revert {
      paths = java.util.List.copyOf(paths);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.revert(this);
    }
  }

  /** Saves the live checkpoint as {@code name}; with {@code force} an existing save of that name moves here. */
  record Save(String name, boolean force) implements Command {
    public Save(String name) {
      this(name, false);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.save(this);
    }
  }

  /** Deletes the save {@code name}; the checkpoint it named stays. */
  record DeleteSave(String name) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.deleteSave(this);
    }
  }

  /** How the files on disk differ from {@code checkpoint}, or from the live one when none is given. */
  record Diff(OptionalInt checkpoint, boolean stat) implements Command {
    public Diff(OptionalInt checkpoint) {
      this(checkpoint, false);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.diff(this);
    }

    public static Diff live() {
      return new Diff(OptionalInt.empty());
    }

    public static Diff of(int checkpoint) {
      return new Diff(OptionalInt.of(checkpoint));
    }
  }

  /**
   * How two checkpoints differ, of this tab or another of the session ({@link CheckpointRef});
   * only {@code paths} when some are given. Answered by {@link Event.ComparisonReady}.
   */
  record Compare(CheckpointRef from, CheckpointRef to, java.util.List<String> paths) implements Command {
    public Compare {
      paths = java.util.List.copyOf(paths);
    }

    @Override
    public void dispatch(Handler handler) {
      handler.compare(this);
    }
  }

  /**
   * Takes one file ({@code hunk} -1) or one hunk of the diff from {@code from} to {@code to} into the
   * project, as the side {@code toSide} (else {@code from}'s side) holds it, merged with later edits
   * as a revert is: a new checkpoint on the live path, the model told in one message. With
   * {@code force}, a clash is overwritten and what it held kept under a rescued tag.
   */
  record Take(CheckpointRef from, CheckpointRef to, String path, int hunk, boolean toSide, boolean force)
      implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.take(this);
    }
  }

  /**
   * Writes the path from {@code from} to {@code to} (of this tab) as commits on a new branch of
   * the user's git repository, one per checkpoint that changed files or one ({@code squash}),
   * never touching HEAD, the index or the work tree; {@code force} replaces a branch of that name.
   * Answered by {@link Event.Exported}.
   */
  record Export(CheckpointRef from, CheckpointRef to, String branch, boolean squash, boolean force) implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.export(this);
    }
  }

  /** Asks for a summary of every checkpoint; answered by {@link Event.CheckpointsListed}. */
  record List() implements Command {
    @Override
    public void dispatch(Handler handler) {
      handler.list(this);
    }
  }
}
