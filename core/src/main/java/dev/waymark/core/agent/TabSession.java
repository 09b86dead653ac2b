package dev.waymark.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointException;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ChatRequest;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.model.StreamListener;
import dev.waymark.core.model.ToolArguments;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Sensitive;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tab: a conversation, its checkpoint tree and its agent loop, behind the command/event
 * protocol. Turns and checkpoint commands run one at a time on the tab's own thread; steering,
 * cancel and approvals act at once. Events reach every subscriber in order, on one dispatcher
 * thread per tab.
 *
 * <p>The conversation sent to the model is the system prompt followed by the messages of the
 * checkpoints on the live path, so undo, redo, goto and branch move it together with the files.
 */
public final class TabSession implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TabSession.class);

  private final CheckpointTree tree;
  private final ChatModel model;
  private final Toolset tools;
  private final SessionSettings settings;
  private final Path projectRoot;
  private final String systemPrompt;
  private final ExecutorService worker;
  private final ExecutorService dispatcher;
  private final List<Consumer<Event>> subscribers = new CopyOnWriteArrayList<>();
  private final Map<Integer, List<ChatMessage>> messages = new ConcurrentHashMap<>();
  private final Map<Integer, ToolCall> pendingWhenLeft = new ConcurrentHashMap<>();
  private final Map<Integer, String> drafts = new ConcurrentHashMap<>();
  private final Set<String> allowedForSession = ConcurrentHashMap.newKeySet();
  private final Object steerLock = new Object();
  private RunningTurn running; // guarded by steerLock

  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings) {
    this(tree, projectRoot, model, tools, settings, Memory.EMPTY);
  }

  /**
   * What a tab remembers besides its checkpoint tree: the messages of each checkpoint's turn, the
   * draft left in the input when each was left, and the tool call each was waiting on.
   */
  public record Memory(Map<Integer, List<ChatMessage>> messages, Map<Integer, String> drafts, Map<Integer, ToolCall> pending) {
    public static final Memory EMPTY = new Memory(Map.of(), Map.of(), Map.of());

    public Memory {
      Map<Integer, List<ChatMessage>> copy = new java.util.TreeMap<>();
      messages.forEach((n, list) -> copy.put(n, List.copyOf(list)));
      messages = java.util.Collections.unmodifiableMap(copy);
      drafts = Map.copyOf(drafts);
      pending = Map.copyOf(pending);
    }
  }

  /** A tab brought back with what it remembered (a loaded session). */
  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings,
      Memory memory) {
    this.tree = tree;
    this.projectRoot = projectRoot;
    this.model = model;
    this.tools = tools;
    this.settings = settings;
    this.systemPrompt = SystemPrompt.forProject(projectRoot, settings.basePrompt());
    this.worker = Executors.newSingleThreadExecutor(named("waymark-tab-" + tree.tabId()));
    this.dispatcher = Executors.newSingleThreadExecutor(named("waymark-events-" + tree.tabId()));
    memory.messages().forEach((n, list) -> messages.put(n, new ArrayList<>(list)));
    drafts.putAll(memory.drafts());
    pendingWhenLeft.putAll(memory.pending());
  }

  /** A copy of what the tab remembers now, for saving its session. */
  public Memory memory() {
    Map<Integer, List<ChatMessage>> copy = new java.util.TreeMap<>();
    messages.forEach((n, list) -> {
      synchronized (list) {
        copy.put(n, List.copyOf(list));
      }
    });
    return new Memory(copy, Map.copyOf(drafts), Map.copyOf(pendingWhenLeft));
  }

  public SessionSettings settings() {
    return settings;
  }

  private static java.util.concurrent.ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  public CheckpointTree checkpoints() {
    return tree;
  }

  public void subscribe(Consumer<Event> subscriber) {
    subscribers.add(subscriber);
  }

  /** Takes a command; its effects arrive as events. */
  public void submit(Command command) {
    if (command instanceof Command.Steer steer) {
      steer(steer.text());
    } else if (command instanceof Command.Cancel) {
      RunningTurn turn = current();
      if (turn != null) {
        turn.cancel();
      }
    } else if (command instanceof Command.Approve approve) {
      decide(approve.toolCallId(), new Decision(true, approve.forSession(), ""));
    } else if (command instanceof Command.Deny deny) {
      decide(deny.toolCallId(), new Decision(false, false, deny.reason() == null ? "" : deny.reason()));
    } else if (command instanceof Command.SendPrompt prompt) {
      worker.execute(() -> runTurn(Opening.prompt(prompt.text())));
    } else if (command instanceof Command.Compact) {
      worker.execute(() -> runTurn(Opening.COMPACT));
    } else if (command instanceof Command.Branch branch) {
      worker.execute(() -> {
        try {
          tree.viewAt(branch.from());
        } catch (CheckpointException e) {
          emit(new Event.Error(e.getMessage()));
          return;
        }
        runTurn(Opening.prompt(branch.text()));
      });
    } else if (command instanceof Command.KeepDraft draft) {
      worker.execute(() -> drafts.put(tree.live(), draft.text()));
    } else if (command instanceof Command.View view) {
      // on the dispatcher, so the answer keeps its place among the events and the caller never waits
      dispatcher.execute(() -> moveView(view));
    } else {
      worker.execute(() -> runCheckpointCommand(command));
    }
  }

  /** Completes once every command submitted so far has been handled and its events delivered. */
  public Future<?> idle() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    worker.execute(() -> dispatcher.execute(() -> done.complete(null)));
    return done;
  }

  /** What the next model call would be sent: the system prompt and the live path's messages. */
  public List<ChatMessage> conversation() {
    List<ChatMessage> turns = new ArrayList<>();
    String summary = null;
    for (int n : tree.livePath()) {
      List<ChatMessage> turn = messages.get(n);
      if (turn != null) {
        synchronized (turn) {
          for (ChatMessage m : turn) {
            if (m instanceof ChatMessage.System compacted) { // a /compact: it stands for all before it
              turns.clear();
              summary = compacted.text();
            } else {
              turns.add(m);
            }
          }
        }
      }
    }
    List<ChatMessage> all = new ArrayList<>();
    // the summary joins the system prompt: some chat templates refuse a system message further down
    all.add(new ChatMessage.System(summary == null ? systemPrompt : systemPrompt + "\n\n" + summary));
    all.addAll(turns);
    return all;
  }

  /** What the model is asked for a /compact. */
  static final String COMPACT_REQUEST = "Summarise our conversation so far for yourself, to continue from it with "
      + "the earlier messages gone: the user's goals and instructions, what was done (files read, created and "
      + "changed, commands run, with their outcomes), decisions made, and what is left to do. Be specific about "
      + "paths, names and errors. Answer with the summary only.";

  /** How much of each tool result a /compact sends: results are what makes a conversation long. */
  private static final int COMPACT_RESULT_CHARS = 2000;

  /** Runs a /compact in checkpoint {@code n}: asks the model for a summary and keeps it as the checkpoint's message. */
  private Optional<ChatResponse.Usage> compact(int n, List<ChatMessage> mine, RunningTurn state) {
    List<ChatMessage> request = new ArrayList<>();
    for (ChatMessage m : conversation()) {
      if (m instanceof ChatMessage.ToolResult r && r.content().length() > COMPACT_RESULT_CHARS) {
        m = new ChatMessage.ToolResult(r.toolCallId(), r.toolName(),
            r.content().substring(0, COMPACT_RESULT_CHARS) + "\n[... cut for the summary]", r.isError());
      }
      request.add(m);
    }
    if (request.size() < 2) {
      throw new ModelException(ModelException.Kind.BAD_REQUEST, "There is nothing to compact yet.");
    }
    request.add(new ChatMessage.User(COMPACT_REQUEST));
    StreamListener listener = text -> emit(new Event.AssistantDelta(n, text));
    ChatResponse response = model.stream(new ChatRequest(settings.model(), request, List.of()), listener,
        state.cancellation);
    String summary = response.message().text().strip();
    if (summary.isEmpty()) {
      throw new ModelException(ModelException.Kind.PROTOCOL, "the model answered /compact with an empty summary; "
          + "nothing was compacted");
    }
    synchronized (mine) {
      mine.add(new ChatMessage.System(COMPACTED + summary));
    }
    return response.usage();
  }

  /** Heads the summary a /compact keeps. */
  public static final String COMPACTED = "The earlier conversation was compacted (/compact). Its summary:\n\n";

  private RunningTurn current() {
    synchronized (steerLock) {
      return running;
    }
  }

  private void emit(Event event) {
    dispatcher.execute(() -> {
      for (Consumer<Event> subscriber : subscribers) {
        try {
          subscriber.accept(event);
        } catch (RuntimeException e) {
          LOG.warn("an event subscriber failed on {}", event, e);
        }
      }
    });
  }

  // ----------------------------------------------------------------------------- steering

  private void steer(String text) {
    synchronized (steerLock) {
      if (running != null && running.acceptsSteering) {
        running.steering.add(text);
        emit(new Event.SteeringQueued(running.checkpoint, text));
        return;
      }
    }
    emit(new Event.Warning("No turn is running: your message is sent as a new prompt."));
    submit(new Command.SendPrompt(text));
  }

  private void moveView(Command.View view) {
    try {
      CheckpointTree.ViewPosition at = switch (view.direction()) {
        case BACK -> tree.viewBack();
        case FORWARD -> tree.viewForward();
        case AT -> tree.viewAt(view.checkpoint());
        case LIVE -> tree.viewLive();
      };
      emit(new Event.ViewMoved(at.checkpoint(), at.live()));
    } catch (CheckpointException e) {
      emit(new Event.Error(e.getMessage()));
    }
  }

  private void foldSteering(RunningTurn turn, List<ChatMessage> into) {
    List<String> folded;
    synchronized (steerLock) {
      folded = new ArrayList<>(turn.steering);
      turn.steering.clear();
    }
    for (String text : folded) {
      synchronized (into) {
        into.add(new ChatMessage.User(text));
      }
      emit(new Event.SteeringFolded(turn.checkpoint, text));
    }
  }

  // -------------------------------------------------------------------------------- turns

  /** How a turn begins: with a prompt, or by running a tool call approved after a restore proposed it again. */
  private record Opening(String prompt, ToolCall approvedCall, int resumes, boolean compact) {
    static final Opening COMPACT = new Opening("/compact", null, -1, true);

    static Opening prompt(String text) {
      return new Opening(text, null, -1, false);
    }

    static Opening approved(ToolCall call, int resumes) {
      return new Opening("Approved " + call.name() + ": continue #" + resumes, call, resumes, false);
    }
  }

  private void runTurn(Opening opening) {
    Turn turn;
    try {
      turn = openTurn(opening);
    } catch (CheckpointException e) {
      emit(new Event.Error(e.getMessage()));
      return;
    }
    if (turn == null) {
      return;
    }
    int n = turn.number();
    List<ChatMessage> mine = new ArrayList<>();
    if (opening.approvedCall() == null && !opening.compact()) {
      mine.add(new ChatMessage.User(opening.prompt()));
    }
    messages.put(n, mine);
    RunningTurn state = new RunningTurn(n);
    synchronized (steerLock) {
      running = state;
    }
    emit(new Event.TurnStarted(n, tree.checkpoint(n).parent(), opening.prompt()));

    CheckpointStatus status = CheckpointStatus.DONE;
    Optional<ChatResponse.Usage> usage = Optional.empty();
    try {
      if (opening.compact()) {
        usage = compact(n, mine, state);
      } else {
        if (opening.approvedCall() != null) {
          // a fresh id: the earlier checkpoint already answered the original one with "not run"
          ToolCall call = opening.approvedCall();
          ToolCall again = new ToolCall(approvedId(call.id(), n), call.name(), call.argumentsJson());
          synchronized (mine) {
            mine.add(new ChatMessage.Assistant("", List.of(again)));
          }
          ChatMessage.ToolResult result = runTool(again, turn, state, true);
          synchronized (mine) {
            mine.add(result);
          }
        }
        while (true) {
          foldSteering(state, mine);
          if (state.cancellation.isCancelled()) {
            throw new ModelException(ModelException.Kind.CANCELLED, "cancelled");
          }
          ChatRequest request = new ChatRequest(settings.model(), conversation(), tools.specs());
          StreamListener listener = new StreamListener() {
            @Override
            public void textDelta(String text) {
              emit(new Event.AssistantDelta(n, text));
            }

            @Override
            public void reasoningDelta(String text) {
              emit(new Event.ReasoningDelta(n, text));
            }

            @Override
            public void retrying(Retry retry) {
              emit(new Event.Waiting(n, retry.message()));
            }
          };
          ChatResponse response = model.stream(request, listener, state.cancellation);
          usage = response.usage();
          synchronized (mine) {
            mine.add(response.message());
          }
          List<ToolCall> calls = response.message().toolCalls();
          if (calls.isEmpty()) {
            synchronized (steerLock) {
              if (state.steering.isEmpty()) {
                state.acceptsSteering = false;
                break;
              }
            }
            continue; // a steer came in during this last call: it goes to the model now
          }
          boolean limitReached = false;
          for (ToolCall call : calls) {
            limitReached = limitReached || state.steps >= settings.maxStepsPerTurn();
            ChatMessage.ToolResult result = state.cancellation.isCancelled()
                ? new ChatMessage.ToolResult(call.id(), call.name(), "Not run: the user interrupted the turn.", true)
                : limitReached
                ? new ChatMessage.ToolResult(call.id(), call.name(), "Not run: the turn reached its limit of "
                    + settings.maxStepsPerTurn() + " tool calls.", true)
                : runTool(call, turn, state, false);
            if (!limitReached) {
              state.steps++;
            }
            synchronized (mine) {
              mine.add(result);
            }
          }
          if (limitReached && !state.cancellation.isCancelled()) {
            status = CheckpointStatus.FAILED;
            emit(new Event.Error("The turn was stopped after " + settings.maxStepsPerTurn() + " tool calls, its limit "
                + "(maxStepsPerTurn in settings). What it did is in this checkpoint; send a message to go on."));
            break;
          }
        }
      }
    } catch (ModelException e) {
      if (e.kind() == ModelException.Kind.CANCELLED || state.cancellation.isCancelled()) {
        status = CheckpointStatus.CANCELLED;
      } else {
        status = CheckpointStatus.FAILED;
        emit(new Event.Error(e.getMessage() + wayOut(e)));
      }
    } catch (RuntimeException e) {
      LOG.error("turn #{} failed", n, e);
      status = CheckpointStatus.FAILED;
      emit(new Event.Error("The turn failed: " + e.getMessage()));
    }

    List<String> leftover;
    synchronized (steerLock) {
      state.acceptsSteering = false;
      leftover = new ArrayList<>(state.steering);
      running = null;
    }
    if (state.pendingApproval != null) {
      pendingWhenLeft.put(n, state.pendingApproval);
    }
    try {
      Checkpoint checkpoint = turn.finish(status);
      emit(new Event.CheckpointCreated(checkpoint));
    } catch (CheckpointException e) {
      emit(new Event.Error("Checkpoint #" + n + " could not be stored: " + e.getMessage()));
    }
    emit(new Event.TurnFinished(n, status, usage));
    if (!leftover.isEmpty()) {
      String text = String.join("\n\n", leftover);
      if (status == CheckpointStatus.CANCELLED) {
        emit(new Event.Warning("The turn was interrupted before your queued message reached the model; it was not sent: " + text));
      } else {
        emit(new Event.Warning("Your message came after the turn's last model call; it is sent as the next prompt."));
        worker.execute(() -> runTurn(Opening.prompt(text)));
      }
    }
  }

  /**
   * A new id for a call approved after a restore, within the 40 characters OpenAI allows and the
   * characters Anthropic allows: the original's start, the checkpoint, and a random tail.
   */
  static String approvedId(String original, int checkpoint) {
    String tail = "_a" + checkpoint + "_" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    String head = original.replaceAll("[^A-Za-z0-9_-]", "");
    return head.substring(0, Math.min(head.length(), 40 - tail.length())) + tail;
  }

  /** What the user can do when the server refuses the conversation itself. */
  private static String wayOut(ModelException e) {
    if (e.kind() == ModelException.Kind.CONTEXT_TOO_LONG) {
      return ". The conversation is kept: /compact summarises it into one message (undo that to get the turns"
          + " back), or /checkpoint undo takes turns out of it; then go on.";
    }
    if (e.kind() == ModelException.Kind.BAD_REQUEST && !e.getMessage().startsWith("There is nothing")) {
      return ". The conversation is kept; if the server keeps refusing it, /checkpoint undo takes the last turn out"
          + " of what is sent.";
    }
    return "";
  }

  /** Opens the turn's checkpoint: under live, or as a branch from the viewed one; null when a conflict stopped the branch. */
  private Turn openTurn(Opening opening) {
    CheckpointTree.ViewPosition view = tree.view();
    if (opening.approvedCall() != null) {
      if (tree.live() != opening.resumes()) {
        emit(new Event.Warning("Not run: the tab moved away from #" + opening.resumes() + " before the approval arrived."));
        return null;
      }
      tree.viewLive();
      return tree.begin();
    }
    if (opening.compact()) {
      tree.viewLive(); // a summary of the live conversation continues it, wherever the view stands
      return tree.begin();
    }
    drafts.put(tree.live(), opening.prompt());
    if (view.live()) {
      return tree.begin();
    }
    // the turn leaves the viewed checkpoint too: undoing it brings this prompt back, not an older one
    drafts.put(view.checkpoint(), opening.prompt());
    CheckpointTree.BranchResult branch = tree.branchFrom(view.checkpoint());
    emit(new Event.CheckpointRestored(branch.restore(), Optional.empty(), ""));
    if (branch.turn().isEmpty()) {
      emit(new Event.Error("Could not branch from #" + view.checkpoint() + ": " + branch.restore().summary()));
      return null;
    }
    return branch.turn().get();
  }

  private ChatMessage.ToolResult runTool(ToolCall call, Turn turn, RunningTurn state, boolean approved) {
    Optional<Tool> found = tools.find(call.name());
    if (found.isEmpty()) {
      return finish(state, call, ToolResult.error("Unknown tool \"" + call.name() + "\". Available: "
          + String.join(", ", tools.specs().stream().map(s -> s.name()).toList())));
    }
    Tool tool = found.get();
    JsonNode arguments;
    try {
      arguments = ToolArguments.parse(call.argumentsJson());
    } catch (java.io.IOException e) {
      return finish(state, call, ToolResult.error("Not run: the arguments of " + call.name()
          + " are not exactly one JSON object (" + e.getMessage() + "). Send one call per tool use."));
    }
    Optional<Sensitive> sensitive = tool.sensitive(arguments, projectRoot);
    boolean needsApproval = !approved && (sensitive.isPresent()
        || settings.approval().needsApproval(tool.kind()) && !allowedForSession.contains(tool.name()));
    boolean ask = needsApproval && settings.interactive();
    CompletableFuture<Decision> answer = ask ? state.expectDecision(call) : null; // before anyone can answer
    String summary = tool.describe(arguments) + sensitive.map(s -> " — " + s.summary()).orElse("");
    emit(new Event.ToolCallProposed(state.checkpoint, call, summary, tool.preview(arguments, projectRoot), needsApproval));
    if (needsApproval) {
      if (!ask) {
        emit(new Event.Warning("Denied " + call.name() + " (" + tool.describe(arguments) + "): " + sensitive.map(Sensitive::denial)
            .orElse("it needs approval and there is nobody to ask. Use --approval "
                + (ApprovalMode.AUTO_EDIT.needsApproval(tool.kind()) ? "yolo" : "auto-edit or yolo") + " to allow it.")));
        return finish(state, call, ToolResult.error("Denied: this call needs the user's approval, and none can be given "
            + "in this non-interactive run."));
      }
      Decision decision = state.awaitDecision(answer);
      if (decision == null) {
        return finish(state, call, ToolResult.error("Not run: the user interrupted the turn."));
      }
      if (!decision.allow()) {
        return finish(state, call, ToolResult.error("The user denied this call" + (decision.reason().isBlank() ? "." : ": " + decision.reason())));
      }
      if (decision.forSession() && sensitive.isEmpty()) { // secrets and Waymark's files are asked about each time
        allowedForSession.add(tool.name());
      }
    }
    ToolResult result;
    try {
      result = tool.run(arguments, new ToolContext(projectRoot, turn, state.cancellation));
    } catch (RuntimeException e) {
      LOG.error("tool {} failed", call.name(), e);
      result = ToolResult.error(call.name() + " failed: " + e.getMessage());
    }
    return finish(state, call, result);
  }

  private ChatMessage.ToolResult finish(RunningTurn state, ToolCall call, ToolResult result) {
    emit(new Event.ToolCallFinished(state.checkpoint, call, result.content(), result.isError()));
    return new ChatMessage.ToolResult(call.id(), call.name(), result.content(), result.isError());
  }

  private void decide(String toolCallId, Decision decision) {
    RunningTurn turn = current();
    if (turn != null && turn.resolve(toolCallId, decision)) {
      return;
    }
    if (turn == null) {
      // a call that a restore proposed again: decided on the worker, after any restore still queued
      worker.execute(() -> decideProposedAgain(toolCallId, decision));
      return;
    }
    emit(new Event.Warning("No tool call " + toolCallId + " is waiting for approval."));
  }

  private void decideProposedAgain(String toolCallId, Decision decision) {
    int live = tree.live();
    ToolCall pending = pendingWhenLeft.get(live);
    if (pending == null || !pending.id().equals(toolCallId) || tree.running().isPresent()) {
      emit(new Event.Warning("No tool call " + toolCallId + " is waiting for approval."));
      return;
    }
    if (!decision.allow()) {
      emit(new Event.Warning("Denied " + pending.name() + "; nothing ran."));
      return;
    }
    if (decision.forSession()) {
      allowedForSession.add(pending.name());
    }
    runTurn(Opening.approved(pending, live));
  }

  // -------------------------------------------------------------------- checkpoint commands

  private void runCheckpointCommand(Command command) {
    try {
      if (command instanceof Command.Undo undo) {
        restored(undo.to() < 0 ? tree.undo(undo.force()) : tree.undoTo(undo.to(), undo.force()));
      } else if (command instanceof Command.Redo redo) {
        restored(tree.redo(redo.force()));
      } else if (command instanceof Command.GoTo goTo) {
        restored(tree.goTo(goTo.checkpoint(), goTo.force()));
      } else if (command instanceof Command.GoToSaved goTo) {
        restored(tree.goTo(tree.saved(goTo.name()), goTo.force()));
      } else if (command instanceof Command.Restore restore) {
        RestoreResult result = tree.restore(restore.checkpoint(), restore.mode(), restore.force());
        if (restore.mode() == dev.waymark.core.checkpoint.RestoreMode.FILES) {
          emit(new Event.CheckpointRestored(result, Optional.empty(), "")); // the conversation, and so the input, stay
        } else {
          restored(result);
        }
      } else if (command instanceof Command.Save save) {
        emit(new Event.CheckpointSaved(tree.save(save.name()), save.name()));
      } else if (command instanceof Command.Diff diff) {
        emit(new Event.DiffReady(tree.diff(diff.checkpoint() < 0 ? tree.live() : diff.checkpoint())));
      } else if (command instanceof Command.List) {
        emit(new Event.CheckpointsListed(summaries(), tree.live()));
      }
    } catch (CheckpointException e) {
      emit(new Event.Error(e.getMessage()));
    }
  }

  private List<CheckpointSummary> summaries() {
    Set<Integer> onPath = Set.copyOf(tree.livePath());
    List<CheckpointSummary> all = new ArrayList<>();
    for (Checkpoint c : tree.checkpoints()) {
      int added = 0;
      int removed = 0;
      for (var diff : c.changedFiles() ? tree.changeDiffs(c.number()) : List.<dev.waymark.core.checkpoint.CheckpointDiff.FileDiff>of()) {
        added += diff.added();
        removed += diff.removed();
      }
      all.add(new CheckpointSummary(c.number(), c.parent(), c.status(), c.created(), promptOf(c.number()),
          c.changes().size(), added, removed, onPath.contains(c.number()), c.tag(), c.savedNames()));
    }
    return all;
  }

  /** The prompt that opened checkpoint {@code n}: its first user message. */
  private String promptOf(int n) {
    List<ChatMessage> turn = messages.get(n);
    if (turn == null) {
      return "";
    }
    synchronized (turn) {
      for (ChatMessage m : turn) {
        if (m instanceof ChatMessage.User user) {
          return user.text();
        }
        if (m instanceof ChatMessage.System) {
          return "/compact";
        }
      }
    }
    return "";
  }

  private void restored(RestoreResult result) {
    Optional<ToolCall> pending = result.applied() ? Optional.ofNullable(pendingWhenLeft.get(result.target())) : Optional.empty();
    String draft = result.applied() ? drafts.getOrDefault(result.target(), "") : "";
    emit(new Event.CheckpointRestored(result, pending, draft));
  }

  @Override
  public void close() {
    RunningTurn turn = current();
    if (turn != null) {
      turn.cancel();
    }
    worker.shutdown();
    boolean ended = false;
    try {
      ended = worker.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ended) {
      // Another process may open the tab now; a turn that did not end keeps it until this one exits.
      try {
        tree.release();
      } catch (RuntimeException e) {
        LOG.warn("tab {} stays held: {}", tree.tabId(), e.getMessage());
      }
    }
    dispatcher.shutdown();
    try {
      dispatcher.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ------------------------------------------------------------------------------ state

  private record Decision(boolean allow, boolean forSession, String reason) {}

  /** The state of the running turn that other threads touch. */
  private static final class RunningTurn {
    final int checkpoint;
    final Cancellation cancellation = new Cancellation();
    int steps; // tool calls run in this turn; only the turn's thread touches it
    final List<String> steering = new ArrayList<>(); // guarded by TabSession.steerLock
    boolean acceptsSteering = true; // guarded by TabSession.steerLock
    volatile ToolCall pendingApproval;
    private CompletableFuture<Decision> decision;

    RunningTurn(int checkpoint) {
      this.checkpoint = checkpoint;
    }

    void cancel() {
      cancellation.cancel();
      synchronized (this) {
        if (decision != null) {
          decision.complete(null);
        }
      }
    }

    /** Registers {@code call} as waiting for Approve or Deny. */
    CompletableFuture<Decision> expectDecision(ToolCall call) {
      CompletableFuture<Decision> waiting = new CompletableFuture<>();
      synchronized (this) {
        decision = waiting;
        pendingApproval = call;
      }
      cancellation.onCancel(() -> waiting.complete(null));
      return waiting;
    }

    /** Waits for the answer; null when the turn was cancelled meanwhile. */
    Decision awaitDecision(CompletableFuture<Decision> waiting) {
      try {
        Decision d = waiting.get();
        if (d != null) {
          pendingApproval = null;
        }
        return d;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      } catch (ExecutionException e) {
        return null;
      } finally {
        synchronized (this) {
          decision = null;
        }
      }
    }

    synchronized boolean resolve(String toolCallId, Decision d) {
      ToolCall pending = pendingApproval;
      if (decision == null || pending == null || !pending.id().equals(toolCallId)) {
        return false;
      }
      return decision.complete(d);
    }
  }
}
