package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.hook.HookVerdict;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.context.Mentions;
import dev.waymark.core.context.PromptImages;
import dev.waymark.core.context.Sandboxing;
import dev.waymark.core.context.WorkingEnvironment;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tab: a conversation, its checkpoint tree and its agent loop, behind the command/event
 * protocol.
 *
 * <p>Commands go through one ordered queue, the tab's thread, which alone holds the tree; while a
 * turn runs, the tree is lent to the turn's thread, and the commands that need it wait in order
 * until the turn has ended. Browsing ({@link Command.View}) reads the latest {@link TabSnapshot},
 * so it is answered at once, turn or no turn; steering, cancel and approvals of the running turn
 * act at once too. Anything a command throws is told as an {@link Event.Error}. Events reach every
 * subscriber in order, on one dispatcher thread per tab; the snapshot is published before the
 * events of the change it shows.
 *
 * <p>The conversation sent to the model is the system prompt followed by the messages of the
 * checkpoints on the live path, so undo, redo, goto and branch move it together with the files.
 */
public final class TabSession implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TabSession.class);

  /** What the model is asked for a /compact. */
  static final String COMPACT_REQUEST = "Summarise our conversation so far for yourself, to continue from it with "
      + "the earlier messages gone: the user's goals and instructions, what was done (files read, created and "
      + "changed, commands run, with their outcomes), decisions made, and what is left to do. Be specific about "
      + "paths, names and errors. Answer with the summary only.";

  /** Heads the summary a /compact keeps. */
  public static final String COMPACTED = "The earlier conversation was compacted (/compact). Its summary:\n\n";

  private final CheckpointTree tree;
  private final AtomicReference<SessionSettings> settings; // the mode and model change while the tab lives
  private final Conversation conversation;
  private final SteeringQueue steering;
  private final ApprovalGate gate;
  private final TabHooks hooks;
  /** What SessionStart hooks said, which the system prompt carries from then on. */
  private volatile String hookContext = "";
  private final Permissions permissions;
  private final TurnRunner runner;
  private final TabQueue queue;
  private final AtomicReference<TabSnapshot> snapshot;
  private final Command.Handler dispatch = new Dispatch();
  private final TabState state = new TabState();
  private final TabParts parts;
  private final RestoreCommands restores;
  private final SaveCommands saves;
  private final TabSettings tabSettings;
  private final ChatModel model;
  private final Path projectRoot;

  /**
   * What a tab remembers besides its checkpoint tree: the messages of each checkpoint's turn, the
   * draft left in the input when each was left, and the tool call each was waiting on.
   */
  public record Memory(Map<Integer, List<ChatMessage>> messages, Map<Integer, String> drafts, Map<Integer, ToolCall> pending) {
    public static final Memory EMPTY = new Memory(Map.of(), Map.of(), Map.of());

    public Memory {
      Map<Integer, List<ChatMessage>> copy = new TreeMap<>();
      messages.forEach((n, list) -> copy.put(n, List.copyOf(list)));
      messages = Collections.unmodifiableMap(copy);
      drafts = Map.copyOf(drafts);
      pending = Map.copyOf(pending);
    }
  }

  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings) {
    this(tree, projectRoot, model, tools, settings, Memory.EMPTY);
  }

  /** A tab brought back with what it remembered (a loaded session). */
  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings,
      Memory memory) {
    this(tree, projectRoot, model, tools, settings, memory, Permissions.none(), Sandboxing.NONE);
  }

  /** A tab whose calls are judged by {@code permissions}, the allow and deny rules it shares with the workspace's other tabs. */
  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings,
      Memory memory, Permissions permissions) {
    this(tree, projectRoot, model, tools, settings, memory, permissions, Sandboxing.NONE);
  }

  /** {@code sandboxing}: what fences the tab's shell commands, as its system prompt tells the model. */
  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings,
      Memory memory, Sandboxing sandboxing) {
    this(tree, projectRoot, model, tools, settings, memory, Permissions.none(), sandboxing);
  }

  /** A tab judged by {@code permissions} whose shell commands {@code sandboxing} fences. */
  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings,
      Memory memory, Permissions permissions, Sandboxing sandboxing) {
    this.tree = tree;
    this.projectRoot = projectRoot;
    this.permissions = permissions;
    this.settings = new AtomicReference<>(settings);
    this.conversation = new Conversation(() -> SystemPrompt.forProject(projectRoot, settings.basePrompt(),
        WorkingEnvironment.of(projectRoot, System.getenv(), LocalDate.now(), sandboxing), tools.promptSection())
        + hookContext, memory);
    this.steering = new SteeringQueue(this::emit);
    this.hooks = new TabHooks(tree.tabId(), projectRoot, this.settings::get, this::emit);
    this.gate = new ApprovalGate(tools, this.settings::get, projectRoot, this::emit, permissions, hooks);
    this.model = model;
    this.runner = new TurnRunner(tree, projectRoot, model, tools, this.settings::get, conversation, steering, gate,
        this::emit, hooks);
    this.queue = new TabQueue(tree.tabId(), this::publish);
    this.snapshot = new AtomicReference<>(TabSnapshot.of(tree, new CheckpointTree.ViewPosition(tree.live(), true)));
    this.parts = new TabParts(tree, projectRoot, model, this.settings, conversation, steering, gate, runner, queue,
        state, this::publish);
    this.restores = new RestoreCommands(parts);
    this.saves = new SaveCommands(parts);
    this.tabSettings = new TabSettings(parts);
    new BackgroundNotice(parts).watch();
  }

  /**
   * Runs the tab's hooks from now on ({@link Hooks#NONE}: none), starting with its SessionStart
   * hooks, whose output the system prompt carries; on the tab's queue, so a prompt sent meanwhile
   * waits for it.
   */
  public void hooks(Hooks configured) {
    hooks.set(configured);
    if (configured.isEmpty()) {
      return;
    }
    String source = tree.live() == 0 ? "startup" : "resume";
    queue.later("SessionStart", () -> {
      HookVerdict said = hooks.sessionStart(source);
      if (!said.context().isBlank()) {
        hookContext = "\n\n# From the user's SessionStart hook\n" + said.context().strip();
        conversation.systemPromptChanged(); // in case something asked for it before the hook answered
      }
    });
  }

  /**
   * How this tab finds the other tabs of its session, by id or by place (1 for the first), for
   * commands that name their checkpoints ({@code Compare}, {@code Take}).
   */
  public void peers(Function<String, Optional<CheckpointTree.Snapshot>> lookup) {
    state.peers = lookup::apply;
  }

  /** The hooks this tab runs, for /hooks. */
  public Hooks hooks() {
    return hooks.configured();
  }

  public String tabId() {
    return tree.tabId();
  }

  /** The settings the tab runs with now: its model and approval mode as last set. */
  public SessionSettings settings() {
    return settings.get();
  }

  /** The allow and deny rules this tab's calls are judged by; front ends list, add and remove them here. */
  public Permissions permissions() {
    return permissions;
  }

  /** The rule that would allow calls like {@code call} from now on (the approval's "always" offers it). */
  public PermissionRule ruleFor(ToolCallView call) {
    return gate.suggest(call.name(), call.argumentsJson());
  }

  /** The tab as it stands, on any thread, without waiting on the tree. */
  public TabSnapshot snapshot() {
    return snapshot.get();
  }

  /** A copy of what the tab remembers now, for saving its session. */
  public Memory memory() {
    return conversation.memory();
  }

  /**
   * The tab's tree itself, for setting a tab up before it runs commands and for tests; once it
   * runs, only the tab's threads touch it: read {@link #snapshot()} instead.
   */
  public CheckpointTree checkpoints() {
    return tree;
  }

  /** What the next model call would be sent: the system prompt and the live path's messages. */
  public List<ChatMessage> conversation() {
    return conversation.sent(snapshot.get().livePath());
  }

  public void subscribe(Consumer<Event> subscriber) {
    queue.subscribe(subscriber);
  }

  private long submissions; // guarded by this: ids in the order commands are taken

  /**
   * Takes a command and returns its submission id: ids rise in the order commands are taken, and
   * an {@link Event.Error} from a command names it. The command's effects arrive as events. Throws
   * {@link RejectedExecutionException} once the tab is closed.
   */
  public synchronized long submit(Command command) {
    long id = ++submissions;
    queue.submitting(id);
    try {
      command.dispatch(dispatch);
    } finally {
      queue.submitting(0);
    }
    return id;
  }

  /** Completes once every command submitted so far has been handled and its events delivered. */
  public Future<?> idle() {
    return queue.idle();
  }

  /** Routes each command: to the queue, held while a turn runs if it needs the tree, or to the running turn. */
  private final class Dispatch implements Command.Handler {
    @Override
    public void compact(Command.Compact c) {
      later(c, () -> startTurn(Opening.COMPACT));
    }

    @Override
    public void runShell(Command.RunShell c) {
      later(c, () -> startTurn(Opening.shell(c.command())));
    }

    @Override
    public void sendPrompt(Command.SendPrompt c) {
      later(c, () -> startTurn(Opening.prompt(c.text())));
    }

    @Override
    public void branch(Command.Branch c) {
      later(c, () -> startTurn(Opening.branch(c.from(), c.text(), c.force())));
    }

    @Override
    public void keepDraft(Command.KeepDraft c) {
      later(c, () -> conversation.keepDraft(tree.live(), c.text()));
    }

    @Override
    public void view(Command.View c) {
      queue.now("View", () -> {
        TabSnapshot moved = snapshot.updateAndGet(s -> s.withView(ViewCursor.move(s, c)));
        emit(new Event.ViewMoved(moved.view().checkpoint(), moved.view().live()));
      });
    }

    @Override
    public void steer(Command.Steer c) {
      if (!steering.offer(c.text())) {
        emit(new Event.Warning("No turn is running: your message is sent as a new prompt."));
        submit(new Command.SendPrompt(c.text()));
      }
    }

    @Override
    public void cancel(Command.Cancel c) {
      steering.current().ifPresent(RunningTurn::cancel);
    }

    @Override
    public void approve(Command.Approve c) {
      decide(c, c.toolCallId(), new RunningTurn.Decision(true, c.forSession(), ""));
    }

    @Override
    public void deny(Command.Deny c) {
      decide(c, c.toolCallId(), new RunningTurn.Decision(false, false, c.reason() == null ? "" : c.reason()));
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

  private void later(Command command, Runnable work) {
    queue.later(command.getClass().getSimpleName(), work);
  }

  private void startTurn(Opening opening) {
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
      emit(new Event.Error(dev.waymark.core.protocol.ErrorKind.MODEL_UNAVAILABLE, unavailable.get() + " Your prompt was not sent, and no checkpoint was made: "
          + opening.prompt()));
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
    emit(new Event.TurnStarted(n, tree.checkpoint(n).parent(), opening.prompt()));
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
    conversation.keepDraft(tree.live(), opening.prompt());
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
    emit(new Event.CheckpointRestored(ProtocolViews.restore(branch.restore()), Optional.empty(), ""));
    // the turn leaves the checkpoint it branched from too: undoing it brings this prompt back, not an older one
    conversation.keepDraft(from, opening.prompt());
    return branch.turn().get();
  }

  private void decide(Command command, String toolCallId, RunningTurn.Decision decision) {
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
  private dev.waymark.core.layer.View isolatedView() {
    try {
      java.util.Optional<Path> dir = tree.viewDirectory();
      return dir.isEmpty() ? null : dev.waymark.core.layer.View.read(dir.get()).orElse(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }


  /**
   * What the live conversation takes, for a tab brought back from a session: the server has counted
   * nothing yet, so an estimate, which automatic compaction then goes by too. Called while the tab is idle.
   */
  public Event.ContextUsed contextEstimate() {
    if (state.contextTokens < 0) {
      state.contextTokens = Conversation.estimatedTokens(conversation.sent(tree.livePath()));
    }
    return new Event.ContextUsed(tree.live(), state.contextTokens, settings.get().contextWindow(), true);
  }



  /**
   * Publishes the tree again, on the tab's queue: a headless command recorded a checkpoint in it
   * directly ({@code waymark shell}), and the session saved next must hold it. Wait on {@link #idle}.
   */
  public void treeChanged() {
    queue.later("TreeChanged", this::publish);
  }

  /** Publishes the tree as it stands; only the thread holding the tree calls it. */
  private void publish() {
    boolean toLive = queue.onQueueThread() && state.viewToLive;
    TabSnapshot fresh = TabSnapshot.of(tree, new CheckpointTree.ViewPosition(tree.live(), true));
    snapshot.updateAndGet(old -> toLive || old.view().live() ? fresh : fresh.withView(old.view()));
    if (toLive) {
      state.viewToLive = false;
    }
  }

  private void emit(Event event) {
    queue.emit(event);
  }

  @Override
  public void close() {
    if (!state.closing) {
      hooks.sessionEnd("other"); // outside any turn: what it changes is not recorded
    }
    state.closing = true;
    steering.current().ifPresent(RunningTurn::cancel);
    if (queue.close()) {
      // Another process may open the tab now; a turn that did not end keeps it until this one exits.
      try {
        tree.release();
      } catch (RuntimeException e) {
        LOG.warn("tab {} stays held: {}", tree.tabId(), e.getMessage());
      }
    }
  }
}
