package dev.waymark.core.agent;

import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Routes each command of a tab: to its queue, held while a turn runs if it needs the tree, or to
 * the running turn; the work itself is done by the tab's tasks.
 */
final class TabDispatch implements Command.Handler {
  private final TabParts parts;
  private final AtomicReference<TabSnapshot> snapshot;
  /** Submits a command again, as the user had sent it: a steer with no turn to steer becomes a prompt. */
  private final Consumer<Command> resubmit;
  private final TurnStart turns;
  private final RestoreCommands restores;
  private final SaveCommands saves;
  private final TabSettings tabSettings;

  TabDispatch(TabParts parts, AtomicReference<TabSnapshot> snapshot, Consumer<Command> resubmit) {
    this.parts = parts;
    this.snapshot = snapshot;
    this.resubmit = resubmit;
    this.turns = new TurnStart(parts);
    this.restores = new RestoreCommands(parts);
    this.saves = new SaveCommands(parts);
    this.tabSettings = new TabSettings(parts);
  }

  @Override
  public void compact(Command.Compact c) {
    parts.later(c, () -> turns.startTurn(Opening.COMPACT));
  }

  @Override
  public void runShell(Command.RunShell c) {
    parts.later(c, () -> turns.startTurn(Opening.shell(c.command())));
  }

  @Override
  public void sendPrompt(Command.SendPrompt c) {
    parts.later(c, () -> turns.startTurn(Opening.prompt(TypedPrompt.sent(c.text(), c.typed()))));
  }

  @Override
  public void branch(Command.Branch c) {
    parts.later(c, () -> turns.startTurn(Opening.branch(c.from(), TypedPrompt.sent(c.text(), c.typed()), c.force())));
  }

  @Override
  public void keepDraft(Command.KeepDraft c) {
    parts.later(c, () -> parts.conversation().keepDraft(parts.tree().live(), c.text()));
  }

  @Override
  public void view(Command.View c) {
    parts.queue().now("View", () -> {
      TabSnapshot moved = snapshot.updateAndGet(s -> s.withView(ViewCursor.move(s, c)));
      parts.emit(new Event.ViewMoved(moved.view().checkpoint(), moved.view().live()));
    });
  }

  @Override
  public void steer(Command.Steer c) {
    if (!parts.steering().offer(TypedPrompt.sent(c.text(), c.typed()))) {
      parts.emit(new Event.Warning("No turn is running: your message is sent as a new prompt."));
      resubmit.accept(new Command.SendPrompt(c.text(), c.typed()));
    }
  }

  @Override
  public void cancel(Command.Cancel c) {
    parts.steering().current().ifPresent(RunningTurn::cancel);
  }

  @Override
  public void approve(Command.Approve c) {
    turns.decide(c, c.toolCallId(), new RunningTurn.Decision(true, c.forSession(), ""));
  }

  @Override
  public void deny(Command.Deny c) {
    turns.decide(c, c.toolCallId(), new RunningTurn.Decision(false, false, c.reason() == null ? "" : c.reason()));
  }

  @Override
  public void undo(Command.Undo c) {
    restores.undo(c);
  }

  @Override
  public void redo(Command.Redo c) {
    restores.redo(c);
  }

  @Override
  public void goTo(Command.GoTo c) {
    restores.goTo(c);
  }

  @Override
  public void goToSaved(Command.GoToSaved c) {
    restores.goToSaved(c);
  }

  @Override
  public void restore(Command.Restore c) {
    restores.restore(c);
  }

  @Override
  public void restoreFiles(Command.RestoreFiles c) {
    restores.restoreFiles(c);
  }

  @Override
  public void restoreRescued(Command.RestoreRescued c) {
    restores.restoreRescued(c);
  }

  @Override
  public void revert(Command.Revert c) {
    restores.revert(c);
  }

  @Override
  public void land(Command.Land c) {
    restores.land(c);
  }

  @Override
  public void discard(Command.Discard c) {
    restores.discard(c);
  }

  @Override
  public void take(Command.Take c) {
    restores.take(c);
  }

  @Override
  public void save(Command.Save c) {
    saves.save(c);
  }

  @Override
  public void deleteSave(Command.DeleteSave c) {
    saves.deleteSave(c);
  }

  @Override
  public void compare(Command.Compare c) {
    saves.compare(c);
  }

  @Override
  public void export(Command.Export c) {
    saves.export(c);
  }

  @Override
  public void diff(Command.Diff c) {
    saves.diff(c);
  }

  @Override
  public void list(Command.List c) {
    saves.list(c);
  }

  @Override
  public void setMode(Command.SetMode c) {
    tabSettings.setMode(c);
  }

  @Override
  public void setModel(Command.SetModel c) {
    tabSettings.setModel(c);
  }
}
