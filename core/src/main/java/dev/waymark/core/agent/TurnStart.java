package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.context.Mentions;
import dev.waymark.core.context.PromptImages;
import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.layer.View;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tab's turn start: a prompt, a shell command, a branch, a compaction or an approved call opens
 * a checkpoint (compacting first when the conversation fills the model's window) and lends the
 * tree to the turn's thread; approvals of a call that a restore proposed again start one too.
 */
final class TurnStart {
  private static final Logger LOG = LoggerFactory.getLogger(TurnStart.class);

  private final TabParts parts;
  private final CheckpointTree tree;
  private final Conversation conversation;
  private final TabState state;
  private final AtomicReference<SessionSettings> settings;
  private final SteeringQueue steering;
  private final ApprovalGate gate;
  private final TurnRunner runner;
  private final TabQueue queue;
  private final ChatModel model;
  private final Path projectRoot;

  TurnStart(TabParts parts) {
    this.parts = parts;
    this.tree = parts.tree();
    this.conversation = parts.conversation();
    this.state = parts.state();
    this.settings = parts.settings();
    this.steering = parts.steering();
    this.gate = parts.gate();
    this.runner = parts.runner();
    this.queue = parts.queue();
    this.model = parts.model();
    this.projectRoot = parts.projectRoot();
  }

  void startTurn(Opening opening) {
    if (state.closing) {
      LOG.info("not starting a turn: the tab is closing");
      return;
    }
    if (opening.sendsPrompt() && (opening.branchFrom().isEmpty() || opening.branchFrom().getAsInt() == tree.live())
        && tooFull()) {
      opening = Opening.compactBefore(opening.prompt(), "The conversation takes " + state.contextTokens * 100 / settings.get().contextWindow()
          + "% of the model's " + settings.get().contextWindow() / 1000 + "k-token window (compacting from "
          + settings.get().compactPercent() + "%): this checkpoint compacts it, as /compact does (undo takes it back), "
          + "then your prompt is sent.");
    }
    Optional<String> unavailable = model.unavailable();
    if (opening.sendsPrompt() && unavailable.isPresent()) {
      // no checkpoint that could only fail: the prompt is given back in words, the tree stays as it was
      emit(new Event.Error(ErrorKind.MODEL_UNAVAILABLE, unavailable.get() + " Your prompt was not sent, and no checkpoint was made: "
          + TypedPrompt.shown(opening.prompt())));
      return;
    }
    Turn turn = openTurn(opening);
    if (turn == null) {
      return;
    }
    int n = turn.number();
    List<ChatMessage> mine = conversation.open(n, Optional.empty());
    List<String> leftOut = new ArrayList<>();
    if (opening.sendsPrompt()) {
      Conversation.append(mine, userMessage(opening.prompt(), leftOut));
    }
    RunningTurn running = new RunningTurn(n);
    running.mayCompactWhenTooLong = !state.lastTurnCompacted;
    steering.started(running);
    emit(new Event.TurnStarted(n, tree.checkpoint(n).parent(), TypedPrompt.shown(opening.prompt())));
    if (!leftOut.isEmpty()) {
      emit(new Event.Warning("Not sent with the prompt: " + String.join("; ", leftOut) + "."));
    }
    state.viewToLive = true;
    // from here the turn's thread holds the tree
    Opening begun = opening;
    queue.lendTree(() -> {
      Optional<String> next = runner.run(turn, running, begun, mine, this::publish);
      state.lastTurnCompacted = running.compacted;
      if (running.contextTokens >= 0) {
        state.contextTokens = running.contextTokens;
      }
      return next;
    }, text -> startTurn(Opening.prompt(text)));
  }

  /**
   * The prompt as the model gets it: the files it @-mentions after it, as they are now, and the
   * images it names; the session keeps it so. What could not be sent is added to {@code leftOut}.
   */
  private ChatMessage.User userMessage(String prompt, List<String> leftOut) {
    String text = Mentions.expand(projectRoot, isolatedView(), prompt); // an isolated tab's @ reads its view
    PromptImages.Found found = PromptImages.in(projectRoot, prompt, System.getProperty("user.home"));
    leftOut.addAll(found.leftOut());
    List<ChatMessage.Image> images = found.images();
    if (!images.isEmpty() && !PromptImages.accepted(settings.get().model())) {
      leftOut.add(String.join(", ", images.stream().map(ChatMessage.Image::name).toList()) + ": " + settings.get().model()
          + " does not accept images (choose a model that does, e.g. with --model)");
      images = List.of();
    }
    if (!leftOut.isEmpty()) {
      text += "\n\n[Not sent with this prompt: " + String.join("; ", leftOut) + "]";
    }
    return new ChatMessage.User(text, images);
  }

  /** Whether the live conversation fills the model's window past the compaction threshold, and may compact. */
  private boolean tooFull() {
    if (state.contextTokens < 0) {
      // a tab brought back from a session, counted by nobody yet: estimated, as the interface's meter is, so that
      // every front end compacts by one rule
      state.contextTokens = Conversation.estimatedTokens(conversation.sent(tree.livePath()));
    }
    long window = settings.get().contextWindow();
    return !state.lastTurnCompacted && settings.get().compactPercent() > 0 && window > 0 && state.contextTokens >= 0
        && state.contextTokens * 100 >= window * settings.get().compactPercent();
  }

  /** Opens the turn's checkpoint: under live, or as a branch from an earlier one; null when it cannot start. */
  private Turn openTurn(Opening opening) {
    if (opening.approvedCall().isPresent()) {
      if (tree.live() != opening.resumes()) {
        emit(new Event.Warning("Not run: the tab moved away from #" + opening.resumes() + " before the approval arrived."));
        return null;
      }
      return tree.begin();
    }
    if (opening.compact()) {
      return tree.begin(); // a summary of the live conversation continues it, wherever the view stands
    }
    conversation.keepDraft(tree.live(), TypedPrompt.shown(opening.prompt()));
    if (opening.branchFrom().isEmpty() || opening.branchFrom().getAsInt() == tree.live()) {
      return tree.begin();
    }
    int from = opening.branchFrom().getAsInt();
    CheckpointTree.BranchResult branch = tree.branchFrom(from, opening.force());
    if (branch.turn().isEmpty()) {
      // one event, not a restore and then an error: the front end says it once and can offer the forced branch
      emit(new Event.BranchRefused(from, opening.prompt(), ProtocolViews.restore(branch.restore())));
      return null;
    }
    // a branch from before a turn that ran subagents takes their tabs back with it, as an undo does
    emit(new Event.CheckpointRestored(ProtocolViews.restore(branch.restore(),
        ChildrenFollow.after(tree, branch.restore(), opening.force(), parts.state().children)), Optional.empty(), ""));
    // the turn leaves the checkpoint it branched from too: undoing it brings this prompt back, not an older one
    conversation.keepDraft(from, TypedPrompt.shown(opening.prompt()));
    return branch.turn().get();
  }

  void decide(Command command, String toolCallId, RunningTurn.Decision decision) {
    Optional<RunningTurn> turn = steering.current();
    if (turn.isPresent() && turn.get().resolve(toolCallId, decision)) {
      return;
    }
    if (turn.isEmpty()) {
      // a call that a restore proposed again: decided in order, after any restore still queued
      later(command, () -> decideProposedAgain(toolCallId, decision));
      return;
    }
    emit(new Event.Warning("No tool call " + toolCallId + " is waiting for approval."));
  }

  private void decideProposedAgain(String toolCallId, RunningTurn.Decision decision) {
    int live = tree.live();
    Optional<ToolCall> pending = conversation.waitingIn(live);
    if (pending.isEmpty() || !pending.get().id().equals(toolCallId) || tree.running().isPresent()) {
      emit(new Event.Warning("No tool call " + toolCallId + " is waiting for approval."));
      return;
    }
    if (!decision.allow()) {
      emit(new Event.Warning("Denied " + pending.get().name() + "; nothing ran."));
      return;
    }
    if (decision.forSession()) {
      gate.allowForSession(pending.get());
    }
    startTurn(Opening.approved(pending.get(), live));
  }

  /** The isolated tab's view, read as it is now; null for a tab that works on the project itself. */
  private View isolatedView() {
    try {
      Optional<Path> dir = tree.viewDirectory();
      return dir.isEmpty() ? null : View.read(dir.get()).orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  private void publish() {
    parts.publish().run();
  }

  private void later(Command command, Runnable work) {
    parts.later(command, work);
  }

  private void emit(Event event) {
    parts.emit(event);
  }
}
