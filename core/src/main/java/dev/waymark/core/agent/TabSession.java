package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.context.Sandboxing;
import dev.waymark.core.context.WorkingEnvironment;
import dev.waymark.core.hook.HookVerdict;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.ChildRestore;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ToolCallView;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
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
 *
 * <p>The tab keeps submission, its queue, snapshots and close; the work of its commands is done by
 * its tasks ({@code TurnStart}, {@code RestoreCommands}, {@code SaveCommands}, {@code TabSettings},
 * {@code BackgroundNotice}), all built from one {@link TabParts}.
 */
public final class TabSession implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TabSession.class);

  private final CheckpointTree tree;
  private final AtomicReference<SessionSettings> settings; // the mode and model change while the tab lives
  private final Conversation conversation;
  private final SteeringQueue steering;
  private final ApprovalGate gate;
  private final TabHooks hooks;
  /** What SessionStart hooks said, which the system prompt carries from then on. */
  private volatile String hookContext = "";
  private final Permissions permissions;
  private final TabQueue queue;
  private final AtomicReference<TabSnapshot> snapshot;
  private final Command.Handler dispatch;
  private final TabState state = new TabState();
  private final RestoreCommands follow; // a child's moves with its parent's checkpoint

  /** A new tab, judged by no rules of its own and fenced by no sandbox its system prompt tells of. */
  public static TabSession of(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools,
      SessionSettings settings) {
    return of(tree, projectRoot, model, tools, settings, TabMemory.EMPTY);
  }

  /** A tab brought back with what it remembered (a loaded session). */
  public static TabSession of(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools,
      SessionSettings settings, TabMemory memory) {
    return of(tree, projectRoot, model, tools, settings, memory, Permissions.none());
  }

  /** A tab whose calls are judged by {@code permissions}, the allow and deny rules it shares with the workspace's other tabs. */
  public static TabSession of(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools,
      SessionSettings settings, TabMemory memory, Permissions permissions) {
    return new TabSession(tree, projectRoot, model, tools, settings, memory, permissions, Sandboxing.NONE);
  }

  /**
   * The one constructor: a tab judged by {@code permissions} whose shell commands {@code sandboxing}
   * fences (as its system prompt tells the model); its tasks are built from one {@link TabParts}.
   */
  public TabSession(CheckpointTree tree, Path projectRoot, ChatModel model, Toolset tools, SessionSettings settings,
      TabMemory memory, Permissions permissions, Sandboxing sandboxing) {
    this.tree = tree;
    this.permissions = permissions;
    this.settings = new AtomicReference<>(settings);
    this.conversation = new Conversation(() -> SystemPrompt.forProject(projectRoot, settings.basePrompt(),
        WorkingEnvironment.of(projectRoot, System.getenv(), LocalDate.now(), sandboxing), tools.promptSection())
        + hookContext, memory);
    this.steering = new SteeringQueue(this::emit);
    this.hooks = new TabHooks(tree.tabId(), projectRoot, this.settings::get, this::emit);
    this.gate = new ApprovalGate(tools, this.settings::get, projectRoot, this::emit, permissions, hooks);
    TurnRunner runner = new TurnRunner(tree, projectRoot, model, tools, this.settings::get, conversation, steering, gate,
        this::emit, hooks, () -> state.peers);
    this.queue = new TabQueue(tree.tabId(), this::publish);
    this.snapshot = new AtomicReference<>(TabSnapshot.of(tree, new CheckpointTree.ViewPosition(tree.live(), true)));
    TabParts parts = new TabParts(tree, projectRoot, model, this.settings, conversation, steering, gate, runner, queue,
        state, this::publish);
    this.dispatch = new TabDispatch(parts, snapshot, this::submit);
    this.follow = new RestoreCommands(parts);
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
  public void peers(Function<String, Optional<TreeSnapshot>> lookup) {
    state.peers = lookup::apply;
  }

  /** How this tab reaches the tabs its checkpoints own (its subagents'), which its undo, redo and goto move with it. */
  public void children(ChildTabs tabs) {
    state.children = tabs;
  }

  /**
   * Moves this tab with its parent's checkpoint: back before {@code link}'s first checkpoint
   * ({@code back}), stopping a turn still running and withdrawing its approvals for good, or to where
   * it stood when it was taken back. Completes once it moved, or could not.
   */
  public CompletableFuture<ChildRestore> followParent(ChildLink link, boolean back, boolean force) {
    return follow.followParent(link, back, force);
  }

  /** Puts this tab, a child, back at {@code checkpoint}: its parent's move was refused by another child's files. */
  public CompletableFuture<Void> putBack(int checkpoint) {
    return follow.putBack(checkpoint);
  }

  /** Where the tab's session is saved, which its hooks are told as {@code transcript_path}. */
  public void transcript(Supplier<Optional<Path>> sessionFile) {
    hooks.transcript(sessionFile);
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
  public TabMemory memory() {
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
   * Checkpoint {@code n} was recorded on the tree outside the tab's turns ({@code waymark shell}):
   * {@code label} names it in lists and the model reads {@code note}; the tree is published again,
   * on the tab's queue, so that the session saved next holds both. Wait on {@link #idle}.
   */
  void recordedOutside(int n, String label, String note) {
    queue.later("RecordedOutside", () -> {
      conversation.open(n, Optional.of(Conversation.LABEL + label.replace('\n', ' ') + "]\n" + note));
      state.viewToLive = true;
      publish();
    });
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
