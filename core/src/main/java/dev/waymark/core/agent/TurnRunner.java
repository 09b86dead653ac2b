package dev.waymark.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.context.InstructionFiles;
import dev.waymark.core.hook.HookVerdict;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ChatRequest;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.model.StreamListener;
import dev.waymark.core.model.ToolArguments;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ApprovalMode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent loop of one turn, on the tab's turn thread, which holds the tree from the turn's
 * start to its checkpoint's finish: model call, tool calls, steering folded in, until the model
 * answers without tool calls, fails, is cancelled or reaches the step limit.
 */
final class TurnRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TurnRunner.class);

  /** How much of each tool result a /compact sends: results are what makes a conversation long. */
  private static final int COMPACT_RESULT_CHARS = 2000;

  private final CheckpointTree tree;
  private final Path projectRoot;
  private final ChatModel model;
  private final Toolset tools;
  private final Supplier<SessionSettings> settings;
  private final Conversation conversation;
  private final SteeringQueue steering;
  private final ApprovalGate gate;
  private final Consumer<Event> emit;
  private final TabHooks hooks;

  /** The other tabs, whose files a checkpoint's subagents changed count as its own. */
  private final Supplier<CheckpointTools.Peers> peers;

  TurnRunner(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools,
      Supplier<SessionSettings> settings, Conversation conversation, SteeringQueue steering,
      ApprovalGate gate, Consumer<Event> emit, TabHooks hooks, Supplier<CheckpointTools.Peers> peers) {
    this.peers = peers;
    this.hooks = hooks;
    this.tree = tree;
    this.projectRoot = projectRoot;
    this.model = model;
    this.tools = tools;
    this.settings = settings;
    this.conversation = conversation;
    this.steering = steering;
    this.gate = gate;
    this.emit = emit;
  }

  /**
   * Runs the turn opened in {@code turn} and finishes its checkpoint; {@code published} runs once
   * the checkpoint is stored, before its events. Returns the steering that came too late for the
   * turn, to send as the next prompt.
   */
  Optional<String> run(Turn turn, RunningTurn state, Opening opening, List<ChatMessage> mine, Runnable published) {
    int n = turn.number();
    CheckpointStatus status = CheckpointStatus.DONE;
    Optional<ChatResponse.Usage> usage = Optional.empty();
    Optional<String> follow = Optional.empty(); // the prompt a compaction of its own goes before
    try {
      if (opening.compact()) {
        if (opening.then().isPresent()) {
          emit.accept(new Event.Compacting(n, opening.then().get().reason()));
          follow = Optional.of(opening.then().get().prompt());
        }
        state.compacted = true;
        hooks.preCompact(opening.then().isPresent() ? "auto" : "manual", turn, state.cancellation);
        usage = compact(n, mine, state);
      } else {
        try {
          status = loop(turn, state, opening, mine);
          usage = state.usage;
        } catch (ModelException e) {
          if (!tooLongAtTheStart(e, state, opening, mine)) {
            throw e;
          }
          // nothing ran yet: this checkpoint becomes a /compact, and the prompt goes again after it
          String prompt;
          synchronized (mine) {
            prompt = String.join("\n\n", mine.stream().map(m -> ((ChatMessage.User) m).text()).toList());
            mine.clear();
          }
          emit.accept(new Event.Compacting(n, "The server said the conversation is too long for the model: #" + n
              + " compacts it, as /compact does (undo takes it back), and your prompt is sent again after it."));
          follow = Optional.of(prompt);
          state.compacted = true;
          hooks.preCompact("auto", turn, state.cancellation);
          usage = compact(n, mine, state);
        }
      }
    } catch (ModelException e) {
      usage = state.compacted ? Optional.empty() : state.usage;
      if (e.kind() == ModelException.Kind.CANCELLED || state.cancellation.isCancelled()) {
        status = CheckpointStatus.CANCELLED;
        follow = Optional.empty();
      } else {
        status = CheckpointStatus.FAILED;
        emit.accept(new Event.Error(ErrorKinds.of(e), e.getMessage() + wayOut(e)));
        notSent(follow);
        follow = Optional.empty();
      }
    } catch (CheckpointException e) {
      status = CheckpointStatus.FAILED;
      emit.accept(new Event.Error(ErrorKinds.of(e), e.kind() == CheckpointException.Kind.NOTHING_TO_DO ? e.getMessage()
          : "The turn failed: " + e.getMessage()));
      notSent(follow);
      follow = Optional.empty();
    } catch (RuntimeException e) {
      LOG.error("turn #{} failed", n, e);
      status = CheckpointStatus.FAILED;
      emit.accept(new Event.Error(ErrorKind.INTERNAL, "The turn failed: " + e.getMessage()));
      notSent(follow);
      follow = Optional.empty();
    }

    List<String> leftover = steering.end();
    if (state.pendingApproval != null) {
      conversation.leftWaiting(n, state.pendingApproval);
    }
    Optional<Checkpoint> finished = Optional.empty();
    try {
      finished = Optional.of(turn.finish(status));
    } catch (CheckpointException e) {
      emit.accept(new Event.Error(ErrorKinds.of(e), "Checkpoint #" + n + " could not be stored: " + e.getMessage()));
    }
    try {
      published.run();
    } catch (RuntimeException e) {
      LOG.error("the tab's snapshot could not be taken after turn #{}", n, e); // its events still go out
    }
    Optional<ChatResponse.Usage> counted = usage.filter(u -> u.inputTokens() + u.outputTokens() > 0);
    if (counted.isPresent()) {
      // after a compaction the summary is what the conversation takes; after a turn, what the last call read and wrote
      ChatResponse.Usage u = counted.get();
      state.contextTokens = state.compacted ? u.outputTokens() : u.inputTokens() + u.outputTokens();
      emit.accept(new Event.ContextUsed(n, state.contextTokens, settings.get().contextWindow(), false));
    } else {
      // a server that counts nothing (or a turn that ended before it could): an estimate, so that the
      // meter follows the conversation and automatic compaction still comes
      state.contextTokens = Conversation.estimatedTokens(conversation.sent(tree.livePath()));
      emit.accept(new Event.ContextUsed(n, state.contextTokens, settings.get().contextWindow(), true));
    }
    finished.ifPresent(checkpoint -> emit.accept(new Event.CheckpointCreated(ProtocolViews.checkpoint(checkpoint, peers.get()))));
    emit.accept(new Event.TurnFinished(n, ProtocolViews.status(status), usage.map(ProtocolViews::usage)));
    if (leftover.isEmpty()) {
      return follow;
    }
    String text = String.join("\n\n", leftover);
    if (status == CheckpointStatus.CANCELLED) {
      emit.accept(new Event.Warning("The turn was interrupted before your queued message reached the model; it was not sent: " + text));
      return Optional.empty();
    }
    emit.accept(new Event.Warning("Your message came after the turn's last model call; it is sent as the next prompt."));
    return Optional.of(follow.map(prompt -> prompt + "\n\n" + text).orElse(text));
  }

  /** A compaction of its own failed: the prompt it went before is not sent, and the user gets its text back. */
  private void notSent(Optional<String> prompt) {
    prompt.ifPresent(text -> emit.accept(new Event.Warning("The compaction failed, so your prompt was not sent: " + text)));
  }

  /** Whether the first model call of a prompt's turn found the conversation too long, with nothing run yet. */
  private boolean tooLongAtTheStart(ModelException e, RunningTurn state, Opening opening, List<ChatMessage> mine) {
    if (e.kind() != ModelException.Kind.CONTEXT_TOO_LONG || !state.mayCompactWhenTooLong || !opening.sendsPrompt()
        || state.steps > 0 || state.cancellation.isCancelled()) {
      return false;
    }
    int own;
    synchronized (mine) {
      if (mine.isEmpty() || !mine.stream().allMatch(m -> m instanceof ChatMessage.User)) {
        return false;
      }
      own = mine.size();
    }
    // the system prompt and this prompt alone: there is nothing earlier to compact, the prompt itself is too long
    return conversation.sent(tree.livePath()).size() - own > 1;
  }

  private CheckpointStatus loop(Turn turn, RunningTurn state, Opening opening, List<ChatMessage> mine) {
    int n = turn.number();
    String modelName = settings.get().model(); // a turn keeps its model: /model applies from the next turn
    if (opening.approvedCall().isPresent()) {
      // the call stays the model's own: its result here takes the place of the "not run" the earlier
      // checkpoint answered it with (see Conversation#sent), so the model sees the call once
      Conversation.append(mine, gate.run(opening.approvedCall().get(), turn, state, true));
    }
    if (opening.shellCommand().isPresent()) {
      return UserShell.run(opening.shellCommand().get(), n, turn, state, gate, mine);
    }
    if (opening.sendsPrompt() && !promptPassesHooks(turn, state, mine)) {
      return CheckpointStatus.CANCELLED;
    }
    int stopsBlocked = 0;
    while (true) {
      steering.foldInto(state, mine);
      if (state.cancellation.isCancelled()) {
        throw new ModelException(ModelException.Kind.CANCELLED, "cancelled");
      }
      // the mode is read per call: Shift+Tab during the turn changes the prompt of its next call
      List<ChatMessage> sent = conversation.sent(tree.livePath());
      if (settings.get().approval() == ApprovalMode.PLAN) {
        sent = withPlanPrompt(sent);
      }
      ChatRequest request = new ChatRequest(modelName, sent, tools.specs());
      ChatResponse response = model.stream(request, listener(n), state.cancellation);
      state.usage = response.usage();
      reportUsage(n, modelName, response.usage());
      Conversation.append(mine, response.message());
      List<ToolCall> calls = response.message().toolCalls();
      if (calls.isEmpty()) {
        if (stopsBlocked < MAX_STOPS_BLOCKED && stopBlocked(turn, state, stopsBlocked > 0, mine)) {
          stopsBlocked++;
          continue; // the user's Stop hook wants more: its reason goes to the model as the next message
        }
        if (steering.closeIfEmpty()) {
          return CheckpointStatus.DONE;
        }
        continue; // a steer came in during this last call: it goes to the model now
      }
      boolean limitReached = false;
      Map<String, CompletableFuture<ChatMessage.ToolResult>> early =
          ConcurrentCalls.start(calls, tools, settings.get().maxStepsPerTurn() - state.steps, state,
              call -> gate.run(call, turn, state, false));
      for (ToolCall call : calls) {
        limitReached = limitReached || state.steps >= settings.get().maxStepsPerTurn();
        ChatMessage.ToolResult result = early.containsKey(call.id()) ? early.get(call.id()).join() // it ran, cancelled or not
            : state.cancellation.isCancelled()
            ? new ChatMessage.ToolResult(call.id(), call.name(), "Not run: the user interrupted the turn.", true)
            : limitReached
            ? new ChatMessage.ToolResult(call.id(), call.name(), "Not run: the turn reached its limit of "
                + settings.get().maxStepsPerTurn() + " tool calls.", true)
            : withNestedInstructions(call, gate.run(call, turn, state, false));
        if (!limitReached) {
          state.steps++;
        }
        Conversation.append(mine, result);
      }
      if (limitReached && !state.cancellation.isCancelled()) {
        emit.accept(new Event.Error(ErrorKind.STEP_LIMIT, "The turn was stopped after " + settings.get().maxStepsPerTurn() + " tool calls, its limit "
            + "(maxStepsPerTurn in settings). What it did is in this checkpoint; send a message to go on."));
        return CheckpointStatus.FAILED;
      }
    }
  }

  /** How many times one turn's Stop hooks may send it on, so a hook that always blocks cannot run it without end. */
  private static final int MAX_STOPS_BLOCKED = 5;

  /**
   * Runs the UserPromptSubmit hooks over the turn's prompt: one that blocks takes the prompt out
   * of what is sent (the user is told why); what they print joins the prompt as context.
   */
  private boolean promptPassesHooks(Turn turn, RunningTurn state, List<ChatMessage> mine) {
    ChatMessage.User prompt;
    synchronized (mine) {
      if (mine.isEmpty() || !(mine.get(mine.size() - 1) instanceof ChatMessage.User user)) {
        return true;
      }
      prompt = user;
    }
    HookVerdict said = hooks.userPromptSubmit(prompt.text(), turn, state.cancellation);
    if (said.blocks() || said.stops().isPresent()) {
      synchronized (mine) {
        mine.remove(prompt);
      }
      emit.accept(new Event.PromptBlocked(turn.number(), said.namedFirst("UserPromptSubmit") + " blocked the prompt; it was not sent: "
          + (said.blocks() ? said.reason() : said.stops().get())));
      return false;
    }
    if (!said.context().isBlank()) {
      synchronized (mine) {
        mine.set(mine.indexOf(prompt), new ChatMessage.User(prompt.text() + Conversation.HOOK_CONTEXT
            + said.context().strip(), prompt.images()));
      }
    }
    return true;
  }

  /** Whether the Stop hooks keep the turn going; if so, their reason is appended for the model. */
  private boolean stopBlocked(Turn turn, RunningTurn state, boolean active, List<ChatMessage> mine) {
    HookVerdict said = hooks.stop(active, turn, state.cancellation);
    if (!said.blocks() || said.stops().isPresent()) { // "continue": false wins: the turn ends
      return false;
    }
    emit.accept(new Event.Warning(said.namedFirst("Stop") + " sends the turn on: " + said.reason()));
    Conversation.append(mine, new ChatMessage.User("[" + said.namedFirst("Stop") + "] " + said.reason()));
    return true;
  }

  /** The plan-mode instructions joined to the system prompt (the first message), where every provider takes them. */
  private static List<ChatMessage> withPlanPrompt(List<ChatMessage> sent) {
    List<ChatMessage> planned = new ArrayList<>(sent);
    if (!planned.isEmpty() && planned.get(0) instanceof ChatMessage.System system) {
      planned.set(0, new ChatMessage.System(system.text() + "\n\n" + SessionSettings.PLAN_PROMPT));
    } else {
      planned.add(0, new ChatMessage.System(SessionSettings.PLAN_PROMPT));
    }
    return planned;
  }

  private void reportUsage(int n, String modelName, Optional<ChatResponse.Usage> usage) {
    usage.ifPresent(u -> emit.accept(new Event.UsageReported(n, modelName, ProtocolViews.usage(u))));
  }

  /**
   * A file read below a directory with its own {@code AGENTS.md} or {@code CLAUDE.md}: those not
   * yet in the conversation go to the model with the file, so they apply from then on (an undo
   * that takes the read back takes them back too, and the next read brings them again).
   */
  private ChatMessage.ToolResult withNestedInstructions(ToolCall call, ChatMessage.ToolResult result) {
    if (!call.name().equals("read_file") || result.isError()) {
      return result;
    }
    String path;
    try {
      JsonNode arguments = ToolArguments.parse(call.argumentsJson());
      path = arguments.path("path").asText("");
    } catch (IOException e) {
      return result;
    }
    List<InstructionFiles.Instructions> found = InstructionFiles.along(projectRoot, path);
    if (found.isEmpty()) {
      return result;
    }
    List<String> sent = conversation.sent(tree.livePath()).stream()
        .map(m -> m instanceof ChatMessage.ToolResult r ? r.content() : m instanceof ChatMessage.System s ? s.text() : "")
        .toList();
    StringBuilder content = new StringBuilder(result.content());
    for (InstructionFiles.Instructions file : found) {
      if (sent.stream().noneMatch(text -> text.contains(file.header())) && content.indexOf(file.header()) < 0) {
        content.append("\n\n").append(file.block());
      }
    }
    return content.length() == result.content().length() ? result
        : new ChatMessage.ToolResult(result.toolCallId(), result.toolName(), content.toString(), false);
  }

  private StreamListener listener(int n) {
    return new StreamListener() {
      @Override
      public void textDelta(String text) {
        emit.accept(new Event.AssistantDelta(n, text));
      }

      @Override
      public void reasoningDelta(String text) {
        emit.accept(new Event.ReasoningDelta(n, text));
      }

      @Override
      public void retrying(Retry retry) {
        emit.accept(new Event.Waiting(n, retry.message()));
      }
    };
  }

  /** Runs a /compact in checkpoint {@code n}: asks the model for a summary and keeps it as the checkpoint's message. */
  private Optional<ChatResponse.Usage> compact(int n, List<ChatMessage> mine, RunningTurn state) {
    List<ChatMessage> request = new ArrayList<>();
    for (ChatMessage m : conversation.sent(tree.livePath())) {
      if (m instanceof ChatMessage.ToolResult r && r.content().length() > COMPACT_RESULT_CHARS) {
        m = new ChatMessage.ToolResult(r.toolCallId(), r.toolName(),
            r.content().substring(0, COMPACT_RESULT_CHARS) + "\n[... cut for the summary]", r.isError());
      }
      request.add(m);
    }
    if (request.size() < 2) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "There is nothing to compact yet.");
    }
    request.add(new ChatMessage.User(Compaction.REQUEST));
    StreamListener listener = text -> emit.accept(new Event.AssistantDelta(n, text));
    String modelName = settings.get().model();
    ChatResponse response = model.stream(new ChatRequest(modelName, request, List.of()), listener,
        state.cancellation);
    reportUsage(n, modelName, response.usage());
    String summary = response.message().text().strip();
    if (summary.isEmpty()) {
      throw new ModelException(ModelException.Kind.PROTOCOL, "the model answered /compact with an empty summary; "
          + "nothing was compacted");
    }
    Conversation.append(mine, new ChatMessage.System(Compaction.HEADING + summary));
    return response.usage();
  }

  /** What the user can do when the server refuses the conversation itself. */
  private static String wayOut(ModelException e) {
    if (e.kind() == ModelException.Kind.CONTEXT_TOO_LONG) {
      return ". The conversation is kept: /compact summarises it into one message (undo that to get the turns"
          + " back), or /checkpoint undo takes turns out of it; then go on.";
    }
    if (e.kind() == ModelException.Kind.BAD_REQUEST) {
      return ". The conversation is kept; if the server keeps refusing it, /checkpoint undo takes the last turn out"
          + " of what is sent.";
    }
    return "";
  }
}
