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
  private volatile boolean closing;
  private boolean viewToLive; // confined to the queue thread: the next snapshot shows the view back on live
  /** The tokens the live conversation takes, as last counted; -1 before any count. */
  private volatile long contextTokens = -1;
  private final ChatModel model;
  private final Path projectRoot;
  /** Whether the last turn compacted: the next may not compact by itself, so a summary too long cannot loop. */
  private volatile boolean lastTurnCompacted;

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
    // what a command's background processes wrote in its layer reaches the project as they end, not at the next prompt
    tree.onBackgroundEnded(() -> {
      if (!closing) {
        queue.later("BackgroundEnded", this::settleBackground);
      }
    });
  }

  /** Applies and records what the tab's commands' background processes wrote, now that they ended, and says so. */
  private void settleBackground() {
    dev.waymark.core.checkpoint.shell.WorkTreeChanges settled = tree.settleBackground();
    if (settled.isEmpty()) {
      return;
    }
    List<String> said = new ArrayList<>();
    for (var change : settled.recorded()) {
      said.add((!change.before().exists() ? "created " : !change.after().exists() ? "deleted " : "modified ")
          + change.path());
    }
    for (var skipped : settled.skipped()) {
      said.add(skipped.path() + " (" + skipped.reason() + ")");
    }
    int shown = Math.min(said.size(), BACKGROUND_SHOWN);
    emit(new Event.Warning("Background processes of a shell command ended; what they wrote is applied"
        + (settled.recorded().isEmpty() ? "" : " and recorded in #" + tree.filesAt()) + ": "
        + String.join(", ", said.subList(0, shown))
        + (said.size() > shown ? " and " + (said.size() - shown) + " more" : "") + "."));
  }

  private static final int BACKGROUND_SHOWN = 5;

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

  private volatile CheckpointTools.Peers peers = CheckpointTools.Peers.NONE;

  /**
   * How this tab finds the other tabs of its session, by id or by place (1 for the first), for
   * commands that name their checkpoints ({@code Compare}, {@code Take}).
   */
  public void peers(Function<String, Optional<CheckpointTree.Snapshot>> lookup) {
    peers = lookup::apply;
  }

  private CheckpointTools tools() {
    return new CheckpointTools(tree, peers, conversation::promptOf);
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
      later(c, () -> restored(c.to().isEmpty() ? tree.undo(c.force()) : tree.undoTo(c.to().getAsInt(), c.force())));
    }

    @Override
    public void redo(Command.Redo c) {
      later(c, () -> restored(tree.redo(c.force())));
    }

    @Override
    public void goTo(Command.GoTo c) {
      later(c, () -> restored(tree.goTo(c.checkpoint(), c.force())));
    }

    @Override
    public void goToSaved(Command.GoToSaved c) {
      later(c, () -> restored(tree.goTo(tree.saved(c.name()), c.force())));
    }

    @Override
    public void restore(Command.Restore c) {
      later(c, () -> {
        if (c.scope() == RestoreScope.BOTH) {
          restored(tree.restore(c.checkpoint(), ProtocolViews.mode(c.scope()), c.force()));
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
            viewToLive = true;
          }
          emit(new Event.CheckpointRestored(ProtocolViews.restore(result), Optional.empty(), ""));
        }
      });
    }

    @Override
    public void restoreFiles(Command.RestoreFiles c) {
      later(c, () -> {
        RestoreResult result = tree.restorePaths(c.checkpoint(), new java.util.TreeSet<>(c.paths()), c.force());
        noted(result, "restore " + String.join(", ", c.paths()) + " from #" + c.checkpoint(),
            "The user put these files back to how they were at checkpoint #" + c.checkpoint()
                + "; every other file stays as it was.");
      });
    }

    @Override
    public void restoreRescued(Command.RestoreRescued c) {
      later(c, () -> noted(tree.restoreRescued(c.name(), c.force()), "restore rescued " + c.name(),
          "The user put back file versions Waymark had kept when a forced restore overwrote them (rescued " + c.name()
              + "); every other file stays as it was."));
    }

    @Override
    public void revert(Command.Revert c) {
      later(c, () -> {
        RestoreResult result = tree.revert(c.first(), c.last(), new java.util.TreeSet<>(c.paths()), c.force());
        String range = c.first() == c.last() ? "#" + c.first() : "#" + c.first() + "..#" + c.last();
        noted(result, "revert " + range + (c.paths().isEmpty() ? "" : " -- " + String.join(" ", c.paths())),
            "The user reverted the file changes of checkpoint" + (c.first() == c.last() ? " " : "s ") + range
                + (c.paths().isEmpty() ? "" : " (only " + String.join(", ", c.paths()) + ")")
                + ": what " + (c.first() == c.last() ? "that turn" : "those turns")
                + " changed in them was taken back, and every later change was kept.");
      });
    }

    @Override
    public void land(Command.Land c) {
      later(c, () -> {
        int from = tree.live();
        var landed = tree.land(c.keepIsolated());
        List<String> clashed = landed.notLanded().stream().map(line -> line.substring(0, Math.max(0, line.indexOf(": "))))
            .toList();
        noted(new RestoreResult(true, from, tree.live(), landed.landed().stream().filter(p -> !clashed.contains(p)).toList(),
            List.of(), clashed, landed.rescueTag(), tree.livePath(), List.of(), "Landed the view as #" + tree.live() + (c.keepIsolated() ? " (the tab stays isolated)" : "")),
            "land", "The user landed this tab's view on the project: the project now holds what this tab changed"
                + (landed.notLanded().isEmpty() ? "" : ", except " + String.join("; ", landed.notLanded())
                    + " (the user's version kept)")
                + (c.keepIsolated() ? ". The tab stays isolated, its view empty over the landed project."
                    : ". From here the tab works on the project itself."));
      });
    }

    @Override
    public void discard(Command.Discard c) {
      later(c, () -> {
        int from = tree.live();
        List<String> paths = tree.discard();
        noted(new RestoreResult(true, from, tree.live(), paths, List.of(), List.of(), Optional.empty(), tree.livePath(),
            List.of(), "Discarded the view as #"
                + tree.live()), "discard", "The user discarded this tab's view: its files are the project's again, and "
                + "what this tab changed before is gone from them (undo brings it back).");
      });
    }

    @Override
    public void save(Command.Save c) {
      later(c, () -> {
        java.util.OptionalInt before = java.util.OptionalInt.empty();
        try {
          before = java.util.OptionalInt.of(tree.saved(c.name()));
        } catch (dev.waymark.core.checkpoint.lib.CheckpointException none) {
          // a new name
        }
        var saved = tree.save(c.name(), c.force());
        if (before.isPresent() && before.getAsInt() == saved.number()) {
          before = java.util.OptionalInt.empty(); // saved again where it was: nothing moved
        }
        emit(new Event.CheckpointSaved(ProtocolViews.checkpoint(saved), c.name(), tree.saveRef(c.name()), before));
      });
    }

    @Override
    public void deleteSave(Command.DeleteSave c) {
      later(c, () -> {
        int number = tree.deleteSave(c.name());
        emit(new Event.SaveDeleted(number, c.name(), tree.saveRef(c.name())));
      });
    }

    @Override
    public void compare(Command.Compare c) {
      later(c, () -> emit(new Event.ComparisonReady(tools().compare(c))));
    }

    @Override
    public void take(Command.Take c) {
      later(c, () -> {
        CheckpointTools.Taken taken = tools().take(c);
        noted(taken.result(), taken.label(), taken.told());
      });
    }

    @Override
    public void export(Command.Export c) {
      later(c, () -> emit(new Event.Exported(tools().export(c))));
    }

    @Override
    public void diff(Command.Diff c) {
      later(c, () -> emit(new Event.DiffReady(ProtocolViews.diff(tree.diff(c.checkpoint().orElse(tree.live()))))));
    }

    // Set at once, on the submitting thread: a second Shift+Tab right after the first must see the first's mode.
    @Override
    public void setMode(Command.SetMode c) {
      ApprovalMode mode;
      try {
        mode = ApprovalMode.parse(c.mode());
      } catch (IllegalArgumentException e) {
        queue.now("SetMode", () -> { throw e; }); // an Error naming this submission
        return;
      }
      SessionSettings now = settings.updateAndGet(s -> s.withApproval(mode));
      queue.now("SetMode", () -> changed(now));
    }

    @Override
    public void setModel(Command.SetModel c) {
      String model = c.model() == null ? "" : c.model().strip();
      if (model.isEmpty() || model.chars().anyMatch(ch -> Character.isWhitespace(ch) || Character.isISOControl(ch))) {
        queue.now("SetModel", () -> {
          throw new IllegalArgumentException("a model name is one word, e.g. gpt-4.1-mini; got \"" + c.model() + "\"");
        });
        return;
      }
      SessionSettings now = settings.updateAndGet(s -> s.withModel(model));
      queue.now("SetModel", () -> changed(now));
    }

    @Override
    public void list(Command.List c) {
      later(c, () -> emit(new Event.CheckpointsListed(ProtocolViews.summaries(tree, conversation::promptOf),
          tree.live())));
    }
  }

  private void changed(SessionSettings now) {
    emit(new Event.SettingsChanged(now.model(), now.approval().label()));
  }

  private void later(Command command, Runnable work) {
    queue.later(command.getClass().getSimpleName(), work);
  }

  private void startTurn(Opening opening) {
    if (closing) {
      LOG.info("not starting a turn: the tab is closing");
      return;
    }
    if (opening.sendsPrompt() && (opening.branchFrom().isEmpty() || opening.branchFrom().getAsInt() == tree.live())
        && tooFull()) {
      opening = Opening.compactBefore(opening.prompt(), "The conversation takes " + contextTokens * 100 / settings.get().contextWindow()
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
    RunningTurn state = new RunningTurn(n);
    state.mayCompactWhenTooLong = !lastTurnCompacted;
    steering.started(state);
    emit(new Event.TurnStarted(n, tree.checkpoint(n).parent(), opening.prompt()));
    if (!leftOut.isEmpty()) {
      emit(new Event.Warning("Not sent with the prompt: " + String.join("; ", leftOut) + "."));
    }
    viewToLive = true;
    // from here the turn's thread holds the tree
    Opening begun = opening;
    queue.lendTree(() -> {
      Optional<String> next = runner.run(turn, state, begun, mine, this::publish);
      lastTurnCompacted = state.compacted;
      if (state.contextTokens >= 0) {
        contextTokens = state.contextTokens;
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
    return !lastTurnCompacted && settings.get().compactPercent() > 0 && window > 0 && contextTokens >= 0
        && contextTokens * 100 >= window * settings.get().compactPercent();
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

  /** The live path of checkpoint {@code n}, {@code #0} first. */
  private List<Integer> pathTo(int n) {
    java.util.LinkedList<Integer> path = new java.util.LinkedList<>();
    for (int at = n; at >= 0; at = tree.checkpoint(at).parent()) {
      path.addFirst(at);
    }
    return path;
  }

  /**
   * A restore or revert that made a checkpoint of its own: the checkpoint's one message tells the
   * model what happened and which files changed (its first line is the label lists show).
   */
  /** The isolated tab's view, read as it is now; null for a tab that works on the project itself. */
  private dev.waymark.core.layer.View isolatedView() {
    try {
      java.util.Optional<Path> dir = tree.viewDirectory();
      return dir.isEmpty() ? null : dev.waymark.core.layer.View.read(dir.get()).orElse(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private void noted(RestoreResult result, String label, String what) {
    if (result.applied()) {
      int n = tree.live();
      List<String> files = new java.util.ArrayList<>();
      result.written().forEach(path -> files.add(path));
      result.merged().forEach(path -> files.add(path + " (merged with later edits)"));
      result.conflicts().forEach(path -> files.add(path + " (overwritten; kept under " + result.rescueTag().orElse("?") + ")"));
      conversation.open(n, Optional.of(Conversation.LABEL + label + "]\n" + what
          + (files.isEmpty() ? "" : "\nFiles changed: " + String.join(", ", files) + ".")));
      viewToLive = true;
    }
    emit(new Event.CheckpointRestored(ProtocolViews.restore(result), Optional.empty(), ""));
  }

  /**
   * What the live conversation takes, for a tab brought back from a session: the server has counted
   * nothing yet, so an estimate, which automatic compaction then goes by too. Called while the tab is idle.
   */
  public Event.ContextUsed contextEstimate() {
    if (contextTokens < 0) {
      contextTokens = Conversation.estimatedTokens(conversation.sent(tree.livePath()));
    }
    return new Event.ContextUsed(tree.live(), contextTokens, settings.get().contextWindow(), true);
  }

  private void restored(RestoreResult result) {
    Optional<ToolCall> pending = result.applied() ? conversation.waitingIn(result.target()) : Optional.empty();
    String draft = result.applied() ? draftOnReturn(result) : "";
    viewToLive |= result.applied();
    emit(new Event.CheckpointRestored(ProtocolViews.restore(result), pending.map(ProtocolViews::toolCall), draft));
    if (result.applied()) {
      // the provider counts nothing until the next call: an estimate until then
      contextTokens = Conversation.estimatedTokens(conversation.sent(tree.livePath()));
      lastTurnCompacted = false;
      emit(new Event.ContextUsed(tree.live(), contextTokens, settings.get().contextWindow(), true));
    }
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

  /**
   * Publishes the tree again, on the tab's queue: a headless command recorded a checkpoint in it
   * directly ({@code waymark shell}), and the session saved next must hold it. Wait on {@link #idle}.
   */
  public void treeChanged() {
    queue.later("TreeChanged", this::publish);
  }

  /** Publishes the tree as it stands; only the thread holding the tree calls it. */
  private void publish() {
    boolean toLive = queue.onQueueThread() && viewToLive;
    TabSnapshot fresh = TabSnapshot.of(tree, new CheckpointTree.ViewPosition(tree.live(), true));
    snapshot.updateAndGet(old -> toLive || old.view().live() ? fresh : fresh.withView(old.view()));
    if (toLive) {
      viewToLive = false;
    }
  }

  private void emit(Event event) {
    queue.emit(event);
  }

  @Override
  public void close() {
    if (!closing) {
      hooks.sessionEnd("other"); // outside any turn: what it changes is not recorded
    }
    closing = true;
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
