package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.ViewAct;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.ChildRestore;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreScope;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A tab's commands that move its files or its conversation back or across: undo, redo, goto, the
 * restores, revert, land, discard and take. Each runs on the tab's queue, in order, and tells what
 * it did as a {@link Event.CheckpointRestored}; one that made a checkpoint of its own leaves a note
 * for the model in it.
 */
final class RestoreCommands {
  private final TabParts parts;
  private final CheckpointTree tree;
  private final Conversation conversation;
  private final TabState state;
  private final AtomicReference<SessionSettings> settings;

  RestoreCommands(TabParts parts) {
    this.parts = parts;
    this.tree = parts.tree();
    this.conversation = parts.conversation();
    this.state = parts.state();
    this.settings = parts.settings();
  }

  void undo(Command.Undo c) {
    later(c, () -> restored(c.to().isEmpty() ? tree.undo(c.force()) : tree.undoTo(c.to().getAsInt(), c.force()), c.force()));
  }

  void redo(Command.Redo c) {
    later(c, () -> restored(tree.redo(c.force()), c.force()));
  }

  void goTo(Command.GoTo c) {
    later(c, () -> restored(tree.goTo(c.checkpoint(), c.force()), c.force()));
  }

  void goToSaved(Command.GoToSaved c) {
    later(c, () -> restored(tree.goTo(tree.saved(c.name()), c.force()), c.force()));
  }

  /**
   * Moves this tab, a child, with its parent's checkpoint ({@link ChildTabs}): back before
   * {@code link}'s first checkpoint, its running turn stopped and the approvals of what it leaves
   * withdrawn for good (no parent waits for them any more), or forward to where it stood.
   */
  CompletableFuture<ChildRestore> followParent(ChildLink link, boolean back, boolean force) {
    boolean stopping = parts.steering().current().isPresent();
    if (back) {
      parts.steering().current().ifPresent(RunningTurn::cancel); // it ends before the move below runs
    }
    CompletableFuture<ChildRestore> done = new CompletableFuture<>();
    later(new Command.GoTo(link.first(), force), () -> {
      try {
        boolean withdrew = back && conversation.withdrawWaitingFrom(link.first());
        Optional<ChildrenFollow.Target> target = ChildrenFollow.target(tree.snapshot(), tree.livePath(), link, back);
        if (target.isEmpty()) {
          done.complete(new ChildRestore(tree.tabId(), 0, "", back, ChildRestore.State.ALREADY_THERE, Optional.empty(),
              List.of(), stopping, withdrew, ""));
          return;
        }
        RestoreResult result = tree.goTo(target.get().checkpoint(), force);
        restored(result, ChildTabs.NONE, force); // a child's own links are not followed: no two tabs wait on each other
        done.complete(new ChildRestore(tree.tabId(), 0, "", back, result.applied() ? ChildRestore.State.MOVED
            : ChildRestore.State.FAILED, Optional.of(ProtocolViews.childFiles(result)), target.get().ownTurns(),
            stopping, withdrew, ""));
      } catch (RuntimeException e) {
        done.complete(ChildRestore.notMoved(tree.tabId(), back, ChildRestore.State.FAILED, String.valueOf(e.getMessage())));
        throw e;
      }
    });
    return done;
  }

  void restore(Command.Restore c) {
    later(c, () -> {
      if (c.scope() == RestoreScope.BOTH) {
        restored(tree.restore(c.checkpoint(), ProtocolViews.mode(c.scope()), c.force()), c.force());
        return;
      }
      boolean files = c.scope() == RestoreScope.FILES;
      List<Integer> wanted = pathTo(c.checkpoint());
      RestoreResult result = tree.restore(c.checkpoint(), ProtocolViews.mode(c.scope()), c.force());
      String label = (files ? "restore files of #" : "restore conversation of #") + c.checkpoint();
      if (files) {
        noted(result, label, "The user put the project's files back to how they were at checkpoint #" + c.checkpoint()
            + "; the conversation above stays as it was, so files it mentions may differ now.");
      } else {
        if (result.applied()) {
          conversation.openAsConversationOf(tree.live(), wanted, Conversation.LABEL + label + "]\nThe user took the "
              + "conversation back to checkpoint #" + c.checkpoint() + "; the project's files stay as they were, so they "
              + "may hold changes this conversation does not mention.");
          state.viewToLive = true;
        }
        emit(new Event.CheckpointRestored(ProtocolViews.restore(result), Optional.empty(), ""));
      }
    });
  }

  void restoreFiles(Command.RestoreFiles c) {
    later(c, () -> {
      RestoreResult result = tree.restorePaths(c.checkpoint(), new TreeSet<>(c.paths()), c.force());
      noted(result, "restore " + String.join(", ", c.paths()) + " from #" + c.checkpoint(),
          "The user put these files back to how they were at checkpoint #" + c.checkpoint()
              + "; every other file stays as it was.");
    });
  }

  void restoreRescued(Command.RestoreRescued c) {
    later(c, () -> noted(tree.restoreRescued(c.name(), c.force()), "restore rescued " + c.name(),
        "The user put back file versions Waymark had kept when a forced restore overwrote them (rescued " + c.name()
            + "); every other file stays as it was."));
  }

  void revert(Command.Revert c) {
    later(c, () -> {
      RestoreResult result = tree.revert(c.first(), c.last(), new TreeSet<>(c.paths()), c.force());
      String range = c.first() == c.last() ? "#" + c.first() : "#" + c.first() + "..#" + c.last();
      noted(result, "revert " + range + (c.paths().isEmpty() ? "" : " -- " + String.join(" ", c.paths())),
          "The user reverted the file changes of checkpoint" + (c.first() == c.last() ? " " : "s ") + range
              + (c.paths().isEmpty() ? "" : " (only " + String.join(", ", c.paths()) + ")")
              + ": what " + (c.first() == c.last() ? "that turn" : "those turns")
              + " changed in them was taken back, and every later change was kept.");
    });
  }

  void land(Command.Land c) {
    later(c, () -> {
      int from = tree.live();
      int held = tree.viewDiffers();
      var landed = tree.land(c.keepIsolated());
      List<String> setAside = landed.setAside();
      boolean isolated = tree.viewDirectory().isPresent();
      noted(new RestoreResult(true, from, tree.live(), landed.landed(), landed.merged(), setAside, landed.rescueTag(),
          tree.livePath(), landed.deleted(), "Landed the view as #" + tree.live())
          .with(new ViewAct(ViewAct.Kind.LANDED, tree.live(), held, setAside, isolated)),
          "land", "The user landed this tab's view on the project: the project now holds what this tab changed"
              + (landed.notLanded().isEmpty() ? "" : ", except " + String.join("; ", landed.notLanded())
                  + " (the user's version kept, this tab's set aside)")
              + (!isolated ? ". From here the tab works on the project itself."
                  : landed.landed().isEmpty() && landed.merged().isEmpty() ? ". Nothing landed: the tab stays isolated, its view as it was."
                  : ". The tab stays isolated, its view empty over the landed project."));
    });
  }

  void discard(Command.Discard c) {
    later(c, () -> {
      int from = tree.live();
      List<String> paths = tree.discard();
      noted(new RestoreResult(true, from, tree.live(), paths, List.of(), List.of(), Optional.empty(), tree.livePath(),
          List.of(), "Discarded the view as #" + tree.live())
          .with(new ViewAct(ViewAct.Kind.DISCARDED, tree.live(), paths.size(), List.of(), true)),
          "discard", "The user discarded this tab's view: its files are the project's again, and "
              + "what this tab changed before is gone from them (undo brings it back).");
    });
  }

  void take(Command.Take c) {
    later(c, () -> {
      CheckpointTools.Taken taken = parts.tools().take(c);
      noted(taken.result(), taken.label(), taken.told());
    });
  }

  /** The live path of checkpoint {@code n}, {@code #0} first. */
  private List<Integer> pathTo(int n) {
    LinkedList<Integer> path = new LinkedList<>();
    for (int at = n; at >= 0; at = tree.checkpoint(at).parent()) {
      path.addFirst(at);
    }
    return path;
  }

  /**
   * A restore or revert that made a checkpoint of its own: the checkpoint's one message tells the
   * model what happened and which files changed (its first line is the label lists show).
   */
  private void noted(RestoreResult result, String label, String what) {
    if (result.applied()) {
      int n = tree.live();
      List<String> files = new ArrayList<>();
      result.written().forEach(path -> files.add(path));
      result.merged().forEach(path -> files.add(path + " (merged with later edits)"));
      result.conflicts().forEach(path -> files.add(path + " (overwritten; kept under " + result.rescueTag().orElse("?") + ")"));
      conversation.open(n, Optional.of(Conversation.LABEL + label + "]\n" + what
          + (files.isEmpty() ? "" : "\nFiles changed: " + String.join(", ", files) + ".")));
      state.viewToLive = true;
    }
    emit(new Event.CheckpointRestored(ProtocolViews.restore(result), Optional.empty(), ""));
  }

  private void restored(RestoreResult result, boolean force) {
    restored(result, state.children, force);
  }

  private void restored(RestoreResult moved, ChildTabs children, boolean force) {
    List<ChildRestore> followed = ChildrenFollow.after(tree, moved, force, children);
    RestoreResult result = moved;
    Optional<ChildRestore> refused = followed.stream().filter(ChildRestore::refused).findFirst();
    if (refused.isPresent()) { // all or nothing: the children that moved, and this tab, go back where they stood
      children.putBack(followed);
      RestoreResult back = tree.goTo(moved.from(), false);
      result = new RestoreResult(false, moved.from(), moved.target(), List.of(), List.of(),
          refused.get().result().orElseThrow().conflicts(), Optional.empty(), back.livePath(), List.of(), moved.action());
    }
    Optional<ToolCall> pending = result.applied() ? conversation.waitingIn(result.target()) : Optional.empty();
    String draft = result.applied() ? draftOnReturn(result) : "";
    state.viewToLive |= result.applied();
    emit(new Event.CheckpointRestored(ProtocolViews.restore(result, followed), pending.map(ProtocolViews::toolCall), draft));
    if (result.applied()) {
      // the provider counts nothing until the next call: an estimate until then
      state.contextTokens = Conversation.estimatedTokens(conversation.sent(tree.livePath()));
      state.lastTurnCompacted = false;
      emit(new Event.ContextUsed(tree.live(), state.contextTokens, settings.get().contextWindow(), true));
    }
  }

  /** Puts this tab, a child whose parent's move was refused elsewhere, back at {@code checkpoint}. */
  CompletableFuture<Void> putBack(int checkpoint) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    later(new Command.GoTo(checkpoint, false), () -> {
      try {
        restored(tree.goTo(checkpoint, false), ChildTabs.NONE, false);
      } finally {
        done.complete(null);
      }
    });
    return done;
  }

  /**
   * What comes back into the input when a restore reaches its target: going back (an undo), the
   * prompt the user typed for the turn it undid (a restore, revert or compaction has none), the
   * target's child on the way from where the tab was; otherwise what was in the input when the
   * target was left. The draft kept at a checkpoint is the last
   * prompt sent from it, which after a branch from there is another branch's prompt.
   */
  private String draftOnReturn(RestoreResult result) {
    int child = result.from();
    while (child > 0 && tree.checkpoint(child).parent() != result.target()) {
      child = tree.checkpoint(child).parent();
    }
    if (child > 0 && tree.checkpoint(child).parent() == result.target()) {
      String prompt = conversation.typedPromptOf(child); // never a restore's or a revert's label
      if (!prompt.isEmpty()) {
        return prompt;
      }
    }
    return conversation.draft(result.target());
  }

  private void later(Command command, Runnable work) {
    parts.later(command, work);
  }

  private void emit(Event event) {
    parts.emit(event);
  }
}
