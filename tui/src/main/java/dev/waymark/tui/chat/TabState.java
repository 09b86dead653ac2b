package dev.waymark.tui.chat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.context.Mentions;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.protocol.TokenUsage;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Tone;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one tab shows, folded from its session's events. Owned by the UI thread: events are
 * applied there, in order, and nothing here touches files, git or the network.
 */
public final class TabState {

  private final String tabId;
  private final Clock clock;
  private final List<Block> blocks = new ArrayList<>();
  private final List<Integer> lastBlockOf = new ArrayList<>();
  private final List<CheckpointMark> marks = new ArrayList<>();
  private final Map<String, Blocks.ToolUse> toolUses = new HashMap<>();
  private final List<String> steeringQueue = new ArrayList<>();
  /** Said with the prompt on its way (what it attached), under it once its turn starts. */
  private final List<String> withNextPrompt = new ArrayList<>();
  private Blocks.Answer answer;
  private int live;
  private int viewed = -1;
  private boolean running;
  private Instant runningSince;
  private PendingApproval pending;
  private Instant pendingSince = Instant.EPOCH; // when the call waiting was shown
  private Optional<TokenUsage> usage = Optional.empty();
  private Optional<Event.ContextUsed> contextUsed = Optional.empty();
  private Blocks.Reasoning thought; // the reasoning streaming now, until the answer or a tool call
  private boolean reasoningShown;
  private String waiting; // a retry the model client is waiting for; null when none
  private long outputTokens;
  private String title = "";
  private String draftToRestore;
  private Event.BranchRefused branchRefused;
  private DiffView diffToShow;
  private ComparisonView comparisonToShow;
  private boolean unseenFinish;
  private boolean expanded;
  private int version;
  private final Map<String, TokenUsage> tokensByModel = new LinkedHashMap<>();
  private boolean planToRun; // a plan turn ended: "run this plan?" waits for an answer
  private int planChoice; // the answer selected in it
  private Instant restoringAt; // while a restored tab's history is folded in: when its checkpoint was made

  /** A tool call waiting for the user's allow or deny. */
  public record PendingApproval(int checkpoint, ToolCallView call, String summary, String preview, boolean proposedAgain) {}

  public TabState(String tabId, Clock clock) {
    this.tabId = tabId;
    this.clock = clock;
    marks.add(new CheckpointMark(0, -1, TurnStatus.DONE, false, true));
    lastBlockOf.add(-1);
  }

  // -------------------------------------------------------------------------------- reading

  public String tabId() {
    return tabId;
  }

  public List<Block> blocks() {
    return blocks;
  }

  public List<CheckpointMark> checkpoints() {
    return marks;
  }

  public int live() {
    return live;
  }

  /** The checkpoint being viewed, or empty when the view is live. */
  public Optional<Integer> viewed() {
    return viewed < 0 ? Optional.empty() : Optional.of(viewed);
  }

  public boolean running() {
    return running;
  }

  public Optional<Instant> runningSince() {
    return running ? Optional.of(runningSince) : Optional.empty();
  }

  public Optional<PendingApproval> pendingApproval() {
    return Optional.ofNullable(pending);
  }

  /** When the call waiting for approval was shown. */
  public Instant pendingSince() {
    return pendingSince;
  }

  public List<String> steeringQueue() {
    return steeringQueue;
  }

  public Optional<TokenUsage> lastUsage() {
    return usage;
  }

  /** How much of the model's window the conversation takes, as the tab last said. */
  public Optional<Event.ContextUsed> contextUsed() {
    return contextUsed;
  }

  public long outputTokens() {
    return outputTokens;
  }

  /** The first prompt, for the tab's label. */
  public String title() {
    return title;
  }

  public boolean unseenFinish() {
    return unseenFinish;
  }

  public void seen() {
    unseenFinish = false;
  }

  /** Grows with every change: the UI redraws when it moved. */
  public int version() {
    return version;
  }

  /**
   * Where the "viewing" separator goes: before the block at this index (or at the very end when it
   * equals the number of blocks). Blocks from here on are dimmed.
   */
  public int viewBoundary() {
    if (viewed < 0) {
      return blocks.size();
    }
    int last = viewed < lastBlockOf.size() ? lastBlockOf.get(viewed) : -1;
    if (last >= 0) {
      return last + 1;
    }
    for (int i = 0; i < blocks.size(); i++) {
      if (blocks.get(i).checkpoint() > viewed) {
        return i;
      }
    }
    return blocks.size();
  }

  /** True when a block belongs to a checkpoint that is off the live path (undone or branched away from). */
  public boolean rewound(Block block) {
    int n = block.checkpoint();
    return n > 0 && n < marks.size() && !marks.get(n).onLivePath();
  }

  /** A prompt of the live path, and the checkpoint it left: going back there undoes it. */
  /** A checkpoint of the live path: the prompt it answered, or, made by a revert or restore, what that did. */
  public record PathPrompt(int checkpoint, int before, String prompt, String done) {}

  /** The prompts from #1 up to live along the live path, newest first. */
  public List<PathPrompt> livePathPrompts() {
    List<PathPrompt> prompts = new ArrayList<>();
    int before = 0;
    for (CheckpointMark mark : marks) {
      int n = mark.number();
      if (n == 0 || n > live || !mark.onLivePath()) {
        continue;
      }
      Optional<String> typed = blocks.stream().filter(b -> b instanceof Blocks.Prompt && b.checkpoint() == n)
          .map(b -> ((Blocks.Prompt) b).text()).findFirst();
      // a revert or a restore that made a checkpoint has no prompt: its line in the chat says what it did
      String said = typed.isPresent() ? "" : blocks.stream()
          .filter(b -> b instanceof Blocks.Notice notice && b.checkpoint() == n && notice.text().startsWith("↺ "))
          .map(b -> ((Blocks.Notice) b).text()).findFirst().orElse("");
      prompts.add(0, new PathPrompt(n, before, typed.orElse(""), said));
      before = n;
    }
    return prompts;
  }

  /** Takes the draft a restore brought back, once. */
  /** A branch the last event refused, once: its prompt goes back to the input, and forcing it is offered. */
  public Optional<Event.BranchRefused> takeBranchRefused() {
    Event.BranchRefused r = branchRefused;
    branchRefused = null;
    return Optional.ofNullable(r);
  }

  public Optional<String> takeDraftToRestore() {
    String d = draftToRestore;
    draftToRestore = null;
    return Optional.ofNullable(d);
  }

  /** Takes the diff a Diff command brought, once. */
  public Optional<DiffView> takeDiffToShow() {
    DiffView d = diffToShow;
    diffToShow = null;
    return Optional.ofNullable(d);
  }

  /** Takes the diff a Compare command brought, once. */
  public Optional<ComparisonView> takeComparisonToShow() {
    var c = comparisonToShow;
    comparisonToShow = null;
    return Optional.ofNullable(c);
  }

  // ------------------------------------------------------------------------------- changing

  /**
   * Shows a tab brought back from a saved session as it was shown live: each checkpoint's events
   * folded in as they came then (its prompt dated when the checkpoint was made), then where the tab
   * stands, and the tool call that was waiting at live asked again.
   */
  private void restore(Event.TabRestored restored) {
    Optional<String> asked = restored.pendingToolCall().map(ToolCallView::id);
    Event.ToolCallProposed left = null;
    for (Event.TabRestored.RestoredCheckpoint cp : restored.checkpoints()) {
      int n = cp.number();
      ensureMark(n, cp.parent());
      restoringAt = cp.created();
      for (Event event : cp.history()) {
        // the call waiting when Waymark quit is shown once, where it is asked again: quitting was no answer to it
        if (event instanceof Event.ToolCallProposed proposed && asked.equals(Optional.of(proposed.call().id()))) {
          left = proposed;
        } else if (!(event instanceof Event.ToolCallFinished finished && asked.equals(Optional.of(finished.call().id())))) {
          apply(event, true);
        }
      }
      marks.set(n, new CheckpointMark(n, cp.parent(), cp.status(), cp.changedFiles(), false));
    }
    restoringAt = null;
    running = false; // a turn that was running when the session was saved is not running now
    answer = null;
    thought = null;
    pending = null;
    steeringQueue.clear();
    unseenFinish = false;
    live = restored.live();
    viewed = -1;
    for (int i = 0; i < marks.size(); i++) {
      marks.set(i, marks.get(i).onPath(false));
    }
    for (int n : restored.livePath()) {
      ensureMark(n, -1);
      marks.set(n, marks.get(n).onPath(true));
    }
    if (restored.pendingToolCall().isPresent()) { // Waymark quit while it waited
      ToolCallView call = restored.pendingToolCall().get();
      proposeAgain(live, call, left == null ? call.name() + " " + target(call.argumentsJson()) : left.summary(),
          left == null ? "" : left.preview());
    }
    version++;
  }

  /** Shows every tool call's whole diff, output and changed files, or folds them back to a preview. */
  public void toggleExpanded() {
    expanded = !expanded;
    for (Block block : blocks) {
      if (block instanceof Blocks.ToolUse use) {
        use.expand(expanded);
      }
    }
    version++;
  }

  public boolean expanded() {
    return expanded;
  }

  /** A message from the UI itself (a bad command, say), shown in this tab's chat. */
  public void notice(Tone tone, String text) {
    add(new Blocks.Notice(-1, tone, text));
  }

  /**
   * A notice about the prompt being sent (what it attached), shown under that prompt once its turn starts; at once
   * when the tab runs already (the text steers the turn) or no turn starts (an error says why).
   */
  public void noticeWithPrompt(String text) {
    if (running) {
      notice(Tone.MUTED, text);
    } else {
      withNextPrompt.add(text);
    }
  }

  private void sayWithPrompt(int checkpoint) {
    withNextPrompt.forEach(text -> add(new Blocks.Notice(checkpoint, Tone.MUTED, text)));
    withNextPrompt.clear();
  }

  /** Shows or folds every reasoning block of the tab; returns whether they are now shown. */
  public boolean toggleReasoning() {
    reasoningShown = !reasoningShown;
    for (Block b : blocks) {
      if (b instanceof Blocks.Reasoning r) {
        r.expand(reasoningShown);
      }
    }
    version++;
    return reasoningShown;
  }

  /** The retry being waited for, e.g. {@code rate limited, retrying in 12 s (2/3)}. */
  public Optional<String> waiting() {
    return Optional.ofNullable(waiting);
  }

  /**
   * The tokens every model call of this tab used since it was opened, per model (a /model switch
   * starts another entry), for /status and its cost.
   */
  public Map<String, TokenUsage> tokensByModel() {
    return Collections.unmodifiableMap(tokensByModel);
  }

  /** True while a plan turn's "run this plan?" waits for the user's answer. */
  public boolean planToRun() {
    return planToRun;
  }

  /** A plan turn ended: ask whether to run it. */
  public void offerPlan() {
    planToRun = true;
    planChoice = 0;
    version++;
  }

  /** The answer selected in "run this plan?", from 0. */
  public int planChoice() {
    return planChoice;
  }

  /** Moves the selected answer by {@code delta} among {@code answers}, round. */
  public void movePlanChoice(int delta, int answers) {
    planChoice = Math.floorMod(planChoice + delta, Math.max(1, answers));
    version++;
  }

  /** The question is answered, dismissed or overtaken by a new turn. */
  public void clearPlan() {
    if (planToRun) {
      planToRun = false;
      version++;
    }
  }

  public void clearPendingApproval() {
    if (pending != null) {
      Blocks.ToolUse use = toolUses.get(pending.call().id());
      if (use != null && !use.finished()) {
        use.stopAwaiting();
      }
      pending = null;
      version++;
    }
  }

  /** Folds one event in; {@code active} says whether the user is looking at this tab. */
  public void apply(Event event, boolean active) {
    version++;
    waiting = event instanceof Event.Waiting w ? w.message() : null;
    event.dispatch(new Fold(active));
  }

  /** How each event changes the chat: one method per event, so that a new event does not compile until it is shown. */
  private final class Fold implements Event.Handler {
    private final boolean active;

    Fold(boolean active) {
      this.active = active;
    }

    @Override
    public void usageReported(Event.UsageReported reported) {
      tokensByModel.merge(reported.model(), reported.usage(), TokenUsage::plus);
    }

    @Override
    public void tabRestored(Event.TabRestored restored) {
      restore(restored);
    }

    @Override
    public void turnStarted(Event.TurnStarted started) {
      TabState.this.turnStarted(started);
    }

    @Override
    public void reasoningDelta(Event.ReasoningDelta reasoning) {
      if (thought == null) {
        thought = new Blocks.Reasoning(reasoning.checkpoint(), reasoningShown);
        answer = null;
        add(thought);
      }
      thought.append(reasoning.text());
    }

    @Override
    public void assistantDelta(Event.AssistantDelta delta) {
      thought = null;
      if (answer == null) {
        answer = new Blocks.Answer(delta.checkpoint());
        add(answer);
      }
      answer.append(delta.text());
    }

    @Override
    public void toolCallProposed(Event.ToolCallProposed proposed) {
      answer = null;
      thought = null;
      Blocks.ToolUse use = new Blocks.ToolUse(proposed.checkpoint(), proposed.call().id(), proposed.call().name(),
          proposed.summary(), proposed.preview(), proposed.needsApproval());
      toolUses.put(proposed.call().id(), use);
      add(use);
      if (proposed.needsApproval()) {
        pending = new PendingApproval(proposed.checkpoint(), proposed.call(), proposed.summary(), proposed.preview(), false);
        pendingSince = clock.instant();
      }
    }

    @Override
    public void toolCallFinished(Event.ToolCallFinished finished) {
      Blocks.ToolUse use = toolUses.get(finished.call().id());
      if (use != null) {
        use.finish(finished.result(), finished.isError());
      }
      if (pending != null && pending.call().id().equals(finished.call().id())) {
        pending = null;
      }
    }

    @Override
    public void toolOutput(Event.ToolOutput output) {
      Blocks.ToolUse use = toolUses.get(output.id());
      if (use != null) {
        use.live(output.text());
      }
    }

    @Override
    public void steeringQueued(Event.SteeringQueued queued) {
      steeringQueue.add(queued.text());
    }

    @Override
    public void steeringFolded(Event.SteeringFolded folded) {
      steeringQueue.remove(folded.text());
      answer = null;
      add(new Blocks.Steering(folded.checkpoint(), Mentions.typed(folded.text())));
    }

    @Override
    public void checkpointCreated(Event.CheckpointCreated created) {
      int n = created.checkpoint().number();
      ensureMark(n, created.checkpoint().parent().orElse(-1));
      marks.set(n, marks.get(n).withStatus(created.checkpoint().status(), created.checkpoint().changedFiles()));
    }

    @Override
    public void turnFinished(Event.TurnFinished finished) {
      TabState.this.turnFinished(finished, active);
    }

    @Override
    public void checkpointRestored(Event.CheckpointRestored restored) {
      restored(restored);
    }

    @Override
    public void checkpointSaved(Event.CheckpointSaved saved) {
      add(new Blocks.Notice(-1, Tone.ACCENT, "Saved #" + saved.checkpoint().number() + " as \"" + saved.name() + "\""
          + (saved.movedFrom().isPresent() ? ", moved from #" + saved.movedFrom().getAsInt() : "")
          + " (" + saved.ref() + ")."));
    }

    @Override
    public void saveDeleted(Event.SaveDeleted deleted) {
      add(new Blocks.Notice(-1, Tone.ACCENT, "Deleted the save \"" + deleted.name() + "\" (" + deleted.ref()
          + "); #" + deleted.checkpoint() + " stays."));
    }

    @Override
    public void comparisonReady(Event.ComparisonReady compared) {
      if (compared.comparison().isEmpty()) {
        add(new Blocks.Notice(-1, Tone.MUTED, compared.comparison().from() + " and " + compared.comparison().to()
            + " hold the same files."));
      } else {
        comparisonToShow = compared.comparison();
      }
    }

    @Override
    public void exported(Event.Exported exported) {
      add(new Blocks.Notice(-1, Tone.ACCENT, exported.export().summary()));
    }

    @Override
    public void diffReady(Event.DiffReady diff) {
      if (diff.diff().isEmpty()) {
        add(new Blocks.Notice(-1, Tone.MUTED, diff.diff().view()
            ? "The isolated tab's view holds no changes: a land would change nothing in the project."
            : "The files on disk are as they were at #" + diff.diff().checkpoint() + "."));
      } else if (diff.diff().stat()) {
        add(new Blocks.Notice(-1, Tone.NORMAL, (diff.diff().view() ? "What a land would change in the project:\n"
            : "The disk against #" + diff.diff().checkpoint() + ":\n") + DiffStat.of(diff.diff())));
      } else {
        diffToShow = diff.diff();
      }
    }

    @Override
    public void checkpointsListed(Event.CheckpointsListed listed) {
      add(new Blocks.Notice(-1, Tone.NORMAL, listing(listed)));
    }

    @Override
    public void viewMoved(Event.ViewMoved moved) {
      viewed = moved.live() ? -1 : moved.checkpoint();
    }

    @Override
    public void contextUsed(Event.ContextUsed used) {
      contextUsed = Optional.of(used);
    }

    @Override
    public void compacting(Event.Compacting compacting) {
      answer = null;
      add(new Blocks.Notice(compacting.checkpoint(), Tone.WARNING, "! " + compacting.reason()));
    }

    @Override
    public void warning(Event.Warning warning) {
      add(new Blocks.Notice(-1, Tone.WARNING, "! " + warning.message()));
    }

    @Override
    public void promptBlocked(Event.PromptBlocked blocked) {
      add(new Blocks.Notice(-1, Tone.WARNING, "! " + blocked.message()));
    }

    @Override
    public void branchRefused(Event.BranchRefused refused) {
      add(new Blocks.Notice(-1, Tone.ERROR, "✗ Not sent: branching from #" + refused.from() + " would overwrite "
          + String.join(", ", refused.result().conflicts()) + ", changed since and clashing with it. Nothing changed; "
          + "the message is back in the input."));
      branchRefused = refused;
    }

    @Override
    public void error(Event.Error error) {
      sayWithPrompt(-1); // no turn came for the prompt they went with
      add(new Blocks.Notice(-1, Tone.ERROR, "✗ " + error.message()));
    }

    @Override
    public void waiting(Event.Waiting waiting) {
      // shown in the footer until the next event
    }

    @Override
    public void settingsChanged(Event.SettingsChanged changed) {
      // the tab's model and mode are read from its session for the footer
    }
  }

  private void turnStarted(Event.TurnStarted started) {
    planToRun = false; // a new turn answers the question: the user went on without running the plan, or ran it
    int n = started.checkpoint();
    ensureMark(n, started.parent());
    marks.set(n, new CheckpointMark(n, started.parent(), TurnStatus.RUNNING, false, true));
    live = n;
    viewed = -1;
    markLivePath(n);
    running = true;
    runningSince = restoringAt != null ? restoringAt : clock.instant();
    answer = null;
    thought = null;
    String typed = Mentions.typed(started.prompt()); // an MCP resource's text is sent, not shown
    if (title.isEmpty()) {
      title = typed.strip().lines().findFirst().orElse("");
    }
    add(new Blocks.Prompt(n, typed, runningSince));
    sayWithPrompt(n);
  }

  private void turnFinished(Event.TurnFinished finished, boolean active) {
    running = false;
    answer = null;
    steeringQueue.clear();
    int n = finished.checkpoint();
    if (n < marks.size() && marks.get(n).status() == TurnStatus.RUNNING) {
      marks.set(n, marks.get(n).withStatus(finished.status(), marks.get(n).hasEdits()));
    }
    finished.usage().ifPresent(u -> {
      usage = Optional.of(u);
      outputTokens += u.outputTokens();
    });
    if (finished.status() == TurnStatus.CANCELLED) {
      add(new Blocks.Notice(n, Tone.WARNING, "Interrupted. What #" + n + " changed so far is kept and can be undone."));
    }
    if (pending != null && pending.checkpoint() == n) {
      clearPendingApproval();
    }
    unseenFinish = !active;
  }

  private void restored(Event.CheckpointRestored restored) {
    RestoreOutcome result = restored.result();
    // a revert, or a restore of files or conversation only, is a new checkpoint at the end of the live path
    int made = -1;
    if (result.applied()) {
      live = result.livePath().get(result.livePath().size() - 1);
      made = live == result.target() ? -1 : live;
      viewed = -1;
      for (int i = 0; i < marks.size(); i++) {
        marks.set(i, marks.get(i).onPath(false));
      }
      int parent = -1;
      for (int n : result.livePath()) {
        ensureMark(n, parent);
        marks.set(n, marks.get(n).onPath(true));
        parent = n;
      }
      if (made >= 0) {
        int size = result.livePath().size();
        marks.set(made, new CheckpointMark(made, size >= 2 ? result.livePath().get(size - 2) : marks.get(made).parent(),
            TurnStatus.DONE,
            !result.written().isEmpty() || !result.merged().isEmpty() || !result.conflicts().isEmpty(), true));
      }
    }
    boolean clean = result.applied() && result.merged().isEmpty() && result.conflicts().isEmpty();
    add(new Blocks.Notice(made, clean ? Tone.MUTED : Tone.WARNING, "↺ " + result.summary()));
    restored.pendingToolCall().ifPresent(call -> proposeAgain(result.target(), call));
    if (!restored.draft().isEmpty()) {
      draftToRestore = restored.draft();
    }
  }

  /** A tool call that was waiting for approval at {@code checkpoint} when it was left, asked again. */
  public void proposeAgain(int checkpoint, ToolCallView call) {
    Blocks.ToolUse original = toolUses.get(call.id());
    proposeAgain(checkpoint, call, original == null ? call.name() + " " + target(call.argumentsJson()) : original.summary(),
        original == null ? "" : original.preview());
  }

  private void proposeAgain(int checkpoint, ToolCallView call, String summary, String preview) {
    Blocks.ToolUse again = new Blocks.ToolUse(-1, call.id(), call.name(), summary, preview, true);
    toolUses.put(call.id(), again);
    add(again);
    pending = new PendingApproval(checkpoint, call, summary, preview, true);
    pendingSince = clock.instant();
  }

  /** What a saved tool call was about: its path or command, read from its arguments. */
  private static String target(String argumentsJson) {
    try {
      JsonNode args = new ObjectMapper().readTree(argumentsJson);
      for (String field : new String[] {"path", "command", "pattern"}) {
        if (args != null && args.path(field).isTextual()) {
          return args.path(field).asText();
        }
      }
    } catch (JsonProcessingException e) {
      // shown without a target
    }
    return "";
  }

  private List<Line> listing(Event.CheckpointsListed listed) {
    return CheckpointListing.render(listed.checkpoints(), listed.live());
  }

  private void ensureMark(int n, int parent) {
    while (marks.size() <= n) {
      marks.add(new CheckpointMark(marks.size(), parent, TurnStatus.DONE, false, false));
      lastBlockOf.add(-1);
    }
  }

  private void markLivePath(int n) {
    for (int i = 0; i < marks.size(); i++) {
      marks.set(i, marks.get(i).onPath(false));
    }
    for (int at = n; at >= 0 && at < marks.size(); at = marks.get(at).parent()) {
      marks.set(at, marks.get(at).onPath(true));
      if (at == 0) {
        break;
      }
    }
  }

  private void add(Block block) {
    if (block instanceof Blocks.ToolUse use) {
      use.expand(expanded);
    }
    blocks.add(block);
    int n = block.checkpoint();
    if (n >= 0) {
      ensureMark(n, -1);
      lastBlockOf.set(n, blocks.size() - 1);
    }
    version++;
  }
}
