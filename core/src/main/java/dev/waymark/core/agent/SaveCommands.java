package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ViewFileDiff;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A tab's commands that name or read its checkpoints without moving it: {@code Save},
 * {@code DeleteSave}, {@code List}, {@code Diff}, {@code Compare} and {@code Export}; each runs on
 * the tab's queue, in order.
 */
final class SaveCommands {
  private final TabParts parts;
  private final CheckpointTree tree;
  private final Conversation conversation;

  SaveCommands(TabParts parts) {
    this.parts = parts;
    this.tree = parts.tree();
    this.conversation = parts.conversation();
  }

  void save(Command.Save c) {
    later(c, () -> {
      OptionalInt before = OptionalInt.empty();
      try {
        before = OptionalInt.of(tree.saved(c.name()));
      } catch (CheckpointException none) {
        // a new name
      }
      var saved = tree.save(c.name(), c.force());
      if (before.isPresent() && before.getAsInt() == saved.number()) {
        before = OptionalInt.empty(); // saved again where it was: nothing moved
      }
      emit(new Event.CheckpointSaved(ProtocolViews.checkpoint(saved), c.name(), tree.saveRef(c.name()), before));
    });
  }

  void deleteSave(Command.DeleteSave c) {
    later(c, () -> {
      int number = tree.deleteSave(c.name());
      emit(new Event.SaveDeleted(number, c.name(), tree.saveRef(c.name())));
    });
  }

  void list(Command.List c) {
    later(c, () -> emit(new Event.CheckpointsListed(ProtocolViews.summaries(tree, conversation::promptOf, parts.state().peers),
        tree.live())));
  }

  void diff(Command.Diff c) {
    later(c, () -> {
      int at = c.checkpoint().orElse(tree.live());
      // an isolated tab's live files are its view, not the disk: its bare diff is what a land would change
      var view = at == tree.live() ? tree.viewFiles() : Optional.<List<ViewFileDiff>>empty();
      emit(new Event.DiffReady(view.isPresent() ? ProtocolViews.view(at, view.get(), c.stat())
          : ProtocolViews.diff(tree.diff(at), c.stat())));
    });
  }

  void compare(Command.Compare c) {
    later(c, () -> emit(new Event.ComparisonReady(parts.tools().compare(c))));
  }

  void export(Command.Export c) {
    later(c, () -> emit(new Event.Exported(parts.tools().export(c))));
  }

  private void later(Command command, Runnable work) {
    parts.later(command, work);
  }

  private void emit(Event event) {
    parts.emit(event);
  }
}
