package dev.waymark.core.subagent;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.workspace.TabFactory;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * {@link Subagents} over a {@link Workspace}: each subagent is a new tab of it, whose session
 * {@link ChildTabs} makes from the parent's (its mode and rules, never more) and the agent's definition.
 * At most {@code maxParallel} subagents run at once; the others wait for a place.
 */
public final class WorkspaceSubagents implements Subagents {
  /** Makes a subagent's tab session: the parent's model, mode and rules, the agent's tools and instructions, no {@code task}. */
  public interface ChildTabs {
    TabSession create(CheckpointTree tree, TabSession parent, AgentDefinition agent);
  }

  /** The subagent tabs, by tab id: whose they are. */
  public record Child(String parentTab, String description, String agent) {}

  /** How many subagents run at once unless set otherwise. */
  public static final int DEFAULT_MAX_PARALLEL = 4;

  private final ChildTabs children;
  private final Semaphore places;
  private final Supplier<List<AgentDefinition>> agents;
  private final Map<String, Child> childOf = new ConcurrentHashMap<>();
  private volatile Workspace workspace;

  public WorkspaceSubagents(ChildTabs children, int maxParallel, Supplier<List<AgentDefinition>> agents) {
    this.children = children;
    this.places = new Semaphore(Math.max(1, maxParallel), true);
    this.agents = agents;
  }

  /** The workspace whose tabs the subagents run in; set once it exists (its tabs' tools were made before it). */
  public void attach(Workspace opened) {
    this.workspace = opened;
  }

  /** {@code tab}, whose undo, redo and goto from now on move its subagents' tabs with it. */
  public TabSession watched(TabSession tab) {
    tab.children(new ChildMoves(() -> workspace, tab.tabId()));
    return tab;
  }

  @Override
  public List<AgentDefinition> agents() {
    return agents.get();
  }

  /** Whose subagent the tab {@code tabId} is, if it is one this process started. */
  public Optional<Child> child(String tabId) {
    return Optional.ofNullable(childOf.get(tabId));
  }

  @Override
  public Outcome run(Request request, Cancellation cancellation) {
    Workspace ws = workspace;
    Optional<WorkspaceTab> parent = ws == null ? Optional.empty()
        : ws.tabs().stream().filter(t -> t.tabId().equals(request.parentTab())).findFirst();
    AgentDefinition agent = agents().stream().filter(a -> a.name().equals(request.agent())).findFirst().orElse(null);
    if (parent.isEmpty() || agent == null) {
      return new Outcome("", List.of(), Ending.FAILED, "no subagent can start here (no workspace, or no agent "
          + request.agent() + ").");
    }
    if (!takePlace(cancellation)) {
      return new Outcome("", List.of(), Ending.STOPPED, "");
    }
    try {
      return runIn(ws, parent.get().session(), agent, request, cancellation);
    } finally {
      places.release();
    }
  }

  private boolean takePlace(Cancellation cancellation) {
    try {
      while (!places.tryAcquire(100, TimeUnit.MILLISECONDS)) { // the parent's Esc ends the wait too
        if (cancellation.isCancelled()) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Outcome runIn(Workspace ws, TabSession parent, AgentDefinition agent, Request request, Cancellation cancellation) {
    TabFactory childSession = (tree, memory) -> children.create(tree, parent, agent);
    WorkspaceTab tab;
    try {
      tab = request.isolated() ? ws.newIsolatedTab(childSession, request.parentTab())
          : ws.newTab(childSession, request.parentTab());
    } catch (CheckpointException refused) { // no views here: said as the result, the parent's turn goes on
      return new Outcome("", List.of(), Ending.FAILED, refused.getMessage());
    }
    String id = tab.tabId();
    childOf.put(id, new Child(request.parentTab(), request.description(), agent.name()));
    List<Integer> made = new CopyOnWriteArrayList<>();
    List<String> errors = new CopyOnWriteArrayList<>();
    CompletableFuture<Event.TurnFinished> finished = new CompletableFuture<>();
    tab.session().subscribe(event -> {
      if (event instanceof Event.TurnStarted started && !finished.isDone()) {
        made.add(started.checkpoint());
      } else if (event instanceof Event.Error error && !finished.isDone()) {
        errors.add(error.message());
      } else if (event instanceof Event.TurnFinished done) {
        finished.complete(done);
      }
    });
    cancellation.onCancel(() -> tab.session().submit(new Command.Cancel()));
    ws.submit(tab, List.of(new Command.SendPrompt(request.prompt())));
    Event.TurnFinished done;
    try {
      done = finished.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      tab.session().submit(new Command.Cancel());
      return new Outcome(id, made, Ending.STOPPED, "");
    } catch (ExecutionException e) {
      return new Outcome(id, made, Ending.FAILED, String.valueOf(e.getCause()));
    }
    String answer = lastAnswer(tab.session(), done.checkpoint());
    if (done.status() == TurnStatus.DONE) {
      String landing = request.isolated() ? land(tab, made) : "";
      return new Outcome(id, made, Ending.DONE, (answer.isBlank() ? "(the subagent answered nothing)" : answer) + landing);
    }
    if (done.status() == TurnStatus.CANCELLED) {
      return new Outcome(id, made, Ending.STOPPED, answer);
    }
    return new Outcome(id, made, Ending.FAILED, errors.isEmpty() ? "its turn ended with " + done.status()
        : String.join("; ", errors));
  }

  /**
   * Lands a finished isolated subagent's view on the project, as a checkpoint of its tab (which the
   * parent's undo takes back with the rest); left in its tab for the user when the project changed
   * under one of its files meanwhile, so that nobody's edit is merged unseen. Says what happened.
   */
  private static String land(WorkspaceTab tab, List<Integer> made) {
    CheckpointTree tree = tab.session().checkpoints();
    if (!tree.viewHoldsChanges()) {
      return "\n\n(Its isolated view holds no change; nothing was landed.)";
    }
    List<String> under = tree.viewChangedUnder();
    if (!under.isEmpty()) {
      return "\n\nIts changes were not landed: the project changed under " + String.join(", ", under)
          + " while it worked. They stay in its isolated tab " + tab.tabId() + ", where the user can /land them"
          + " (merged with those edits) or /discard them.";
    }
    CompletableFuture<Event> result = new CompletableFuture<>();
    tab.session().subscribe(event -> {
      if (event instanceof Event.CheckpointRestored || event instanceof Event.Error) {
        result.complete(event);
      }
    });
    tab.session().submit(new Command.Land());
    Event ended;
    try {
      ended = result.get(5, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "\n\nIts changes were not landed (interrupted); they stay in its isolated tab " + tab.tabId() + ".";
    } catch (ExecutionException | TimeoutException e) {
      return "\n\nIts changes were not landed (" + e + "); they stay in its isolated tab " + tab.tabId() + ".";
    }
    if (ended instanceof Event.Error error) {
      return "\n\nIts changes were not landed: " + error.message() + " They stay in its isolated tab " + tab.tabId() + ".";
    }
    var landed = ((Event.CheckpointRestored) ended).result();
    made.add(landed.target());
    List<String> files = new ArrayList<>(landed.written());
    landed.merged().forEach(path -> files.add(path + " (merged with the project's later edits)"));
    return "\n\nLanded on the project as #" + landed.target() + " of its tab: " + String.join(", ", files)
        + (landed.conflicts().isEmpty() ? "" : "; kept the project's version of " + String.join(", ", landed.conflicts())
            + landed.rescueTag().map(t -> " (the subagent's is under " + t + ")").orElse(""))
        + ".";
  }

  private static String lastAnswer(TabSession session, int checkpoint) {
    List<ChatMessage> messages = session.memory().messages().getOrDefault(checkpoint, List.of());
    List<ChatMessage> reversed = new ArrayList<>(messages);
    Collections.reverse(reversed);
    return reversed.stream().filter(m -> m instanceof ChatMessage.Assistant a && !a.text().isBlank())
        .map(m -> ((ChatMessage.Assistant) m).text().strip()).findFirst().orElse("");
  }
}
