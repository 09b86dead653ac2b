package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a tab's tasks ({@code TurnStart}, {@code RestoreCommands}, {@code SaveCommands},
 * {@code TabSettings}, {@code BackgroundNotice}) share: built once by {@link TabSession}, so that
 * each task is made from the same parts and none reaches back into the session.
 *
 * @param publish publishes the tree as it stands; only the thread holding the tree calls it
 */
record TabParts(CheckpointTree tree, Path projectRoot, ChatModel model, AtomicReference<SessionSettings> settings,
    Conversation conversation, SteeringQueue steering, ApprovalGate gate, TurnRunner runner, TabQueue queue,
    TabState state, Runnable publish) {

  void emit(Event event) {
    queue.emit(event);
  }

  /** Runs {@code work} on the tab's queue, in order, once no turn holds the tree. */
  void later(Command command, Runnable work) {
    queue.later(command.getClass().getSimpleName(), work);
  }

  /** The answers to the commands that name checkpoints, maybe of other tabs. */
  CheckpointTools tools() {
    return new CheckpointTools(tree, state.peers, conversation::promptOf);
  }
}
