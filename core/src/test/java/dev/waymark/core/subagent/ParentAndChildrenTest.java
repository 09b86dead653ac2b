package dev.waymark.core.subagent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A parent checkpoint and the tabs its subagents worked in move as one: undo, redo and goto of the
 * parent take every child with it, say what changed in each, and bring each back where it was.
 */
class ParentAndChildrenTest {
  @TempDir Path temp;
  Path project;
  ShadowStore store;
  Workspace workspace;

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
  }

  @AfterEach
  void tearDown() {
    if (workspace != null) {
      workspace.close();
    }
    store.close();
  }

  private static String json(String single) {
    return single.replace('\'', '"');
  }

  private WorkspaceTab parentTab(String script, ApprovalMode mode) {
    ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.parse(json(script), "test"));
    List<Tool> all = new ArrayList<>(Tools.standard().all());
    WorkspaceSubagents.ChildTabs children = (tree, parent, agent) -> TabSession.of(tree, project, model,
        ChildSetup.tools(Toolset.of(all), agent), ChildSetup.settings(parent.settings(), agent), TabMemory.EMPTY,
        parent.permissions());
    WorkspaceSubagents subagents = new WorkspaceSubagents(children, 4, () -> List.of(AgentDefinition.GENERAL));
    all.add(new TaskTool(subagents));
    workspace = new Workspace(store, "scripted", (tree, memory) -> subagents.watched(TabSession.of(tree, project, model,
        Toolset.of(all), new SessionSettings("scripted", mode, mode == ApprovalMode.ASK, null), memory))); // asking: someone answers
    subagents.attach(workspace);
    return workspace.newTab();
  }

  private static final String TWO_CHILDREN = "{'responses':["
      + "{'whenLastUser':'PARENT','toolCalls':["
      + "{'name':'task','arguments':{'description':'alpha','prompt':'Write a.txt'}},"
      + "{'name':'task','arguments':{'description':'beta','prompt':'Write b.txt'}}]},"
      + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
      + "{'whenLastUser':'Write b.txt','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'B\\n'}}]},"
      + "{'whenLastUser':'Write a.txt','text':'a.txt is written.'},"
      + "{'whenLastUser':'Write b.txt','text':'b.txt is written.'},"
      + "{'whenLastUser':'PARENT','text':'Both done.'},"
      + "{'whenLastUser':'USER two','toolCalls':[{'name':'write_file','arguments':{'path':'two.txt','content':'2\\n'}}]},"
      + "{'whenLastUser':'USER two','text':'two.txt is written.'}]}";

  /** Sends {@code prompt} in {@code tab} and waits until the turn and everything it started are done. */
  private Event.TurnFinished run(WorkspaceTab tab, String prompt) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.session().subscribe(events::add);
    tab.session().submit(new Command.SendPrompt(prompt));
    while (true) {
      Event e = events.poll(30, TimeUnit.SECONDS);
      assertThat(e).as("the turn ends in time").isNotNull();
      if (e instanceof Event.TurnFinished f) {
        settle();
        return f;
      }
    }
  }

  /** The parent's restore after {@code command}, once every tab has settled. */
  private Event.CheckpointRestored restore(WorkspaceTab tab, Command command) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.session().subscribe(events::add);
    tab.session().submit(command);
    while (true) {
      Event e = events.poll(30, TimeUnit.SECONDS);
      assertThat(e).as("the restore ends in time").isNotNull();
      assertThat(e).isNotInstanceOf(Event.Error.class);
      if (e instanceof Event.CheckpointRestored r) {
        settle();
        return r;
      }
    }
  }

  private void settle() throws Exception {
    for (WorkspaceTab t : workspace.tabs()) {
      t.session().idle().get(30, TimeUnit.SECONDS);
    }
  }

  private WorkspaceTab childWhoseFirstPrompt(String prompt) {
    return workspace.tabs().stream().filter(t -> t.subagentOf().isPresent())
        .filter(t -> t.session().memory().messages().getOrDefault(1, List.of()).stream()
        .anyMatch(m -> m.toString().contains(prompt))).findFirst().orElseThrow();
  }

  @Test
  void undoThenRedoOfAParentTurnIsARoundTripThroughTheUsersOwnTurnInAChild() throws Exception {
    WorkspaceTab parent = parentTab(TWO_CHILDREN, ApprovalMode.YOLO);
    run(parent, "PARENT: write two files");
    WorkspaceTab alpha = childWhoseFirstPrompt("Write a.txt");
    assertThat(run(alpha, "USER two: write two.txt").checkpoint()).as("the user's own turn in the child").isEqualTo(2);

    Event.CheckpointRestored undone = restore(parent, new Command.Undo(OptionalInt.empty(), false));

    assertThat(project.resolve("a.txt")).as(undone.result().summary()).doesNotExist();
    assertThat(project.resolve("b.txt")).doesNotExist();
    assertThat(project.resolve("two.txt")).doesNotExist();
    assertThat(undone.result().summary()).isEqualTo("Restored #0: 3 files deleted (2 in ↳1 Write a.txt, 1 in ↳1 Write b.txt; "
        + "your turn #2 in ↳1 Write a.txt undone too).");

    Event.CheckpointRestored redone = restore(parent, new Command.Redo(false));

    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\n");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("B\n");
    assertThat(Files.readString(project.resolve("two.txt"))).as("the user's own turn came back too").isEqualTo("2\n");
    assertThat(alpha.session().snapshot().live()).isEqualTo(2);
    assertThat(redone.result().summary()).isEqualTo("Restored #1: 3 files written (2 in ↳1 Write a.txt, 1 in ↳1 Write b.txt; "
        + "your turn #2 in ↳1 Write a.txt redone too).");

    Event.CheckpointRestored back = restore(parent, new Command.GoTo(0, false));
    assertThat(back.result().summary()).startsWith("Restored #0: 3 files deleted");
    assertThat(alpha.session().snapshot().live()).isZero();
    restore(parent, new Command.GoTo(1, false));
    assertThat(alpha.session().snapshot().live()).isEqualTo(2);
    assertThat(project.resolve("two.txt")).exists();
  }

  @Test
  void theParentsCheckpointCountsWhatItsSubagentsChanged() throws Exception {
    WorkspaceTab parent = parentTab(TWO_CHILDREN, ApprovalMode.YOLO);
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    parent.session().subscribe(events::add);

    run(parent, "PARENT: write two files");

    Event.CheckpointCreated created = events.stream().filter(e -> e instanceof Event.CheckpointCreated)
        .map(e -> (Event.CheckpointCreated) e).findFirst().orElseThrow();
    assertThat(created.checkpoint().subagentPaths()).containsExactly("a.txt", "b.txt");
    assertThat(created.checkpoint().changedFiles()).as("it changed files, through its subagents").isTrue();
    parent.session().submit(new Command.List());
    Event.CheckpointsListed listed = next(events, Event.CheckpointsListed.class);
    assertThat(listed.checkpoints()).filteredOn(c -> c.number() == 1).extracting(CheckpointSummary::filesChanged)
        .containsExactly(2);
    assertThat(restore(parent, new Command.Undo(OptionalInt.empty(), false)).result().summary())
        .isEqualTo("Restored #0: 2 files deleted (1 in ↳1 Write a.txt, 1 in ↳1 Write b.txt).");
    assertThat(restore(parent, new Command.Redo(false)).result().summary())
        .isEqualTo("Restored #1: 2 files written (1 in ↳1 Write a.txt, 1 in ↳1 Write b.txt).");
  }

  @Test
  void aParentCheckpointThatChangedNoFileItselfKeepsItsChildrenUnderItsTag() throws Exception {
    WorkspaceTab parent = parentTab(TWO_CHILDREN, ApprovalMode.YOLO);
    run(parent, "PARENT: write two files");
    String parentId = parent.tabId();
    List<String> children = workspace.tabs().stream().filter(t -> t.subagentOf().isPresent()).map(WorkspaceTab::tabId)
        .toList();
    workspace.close();
    workspace = null;

    CheckpointTree fromTags = store.loadTab(parentId); // as if the session file were gone
    try {
      Checkpoint one = fromTags.checkpoint(1);
      assertThat(one.tag()).as("a manifest for its links").isPresent();
      assertThat(one.children()).extracting(ChildLink::tab).containsExactlyInAnyOrderElementsOf(children);
    } finally {
      fromTags.release();
    }
  }

  @Test
  void whenOneChildsFilesClashNoTabMovesAndForceMovesThemAll() throws Exception {
    WorkspaceTab parent = parentTab(TWO_CHILDREN, ApprovalMode.YOLO);
    run(parent, "PARENT: write two files");
    WorkspaceTab alpha = childWhoseFirstPrompt("Write a.txt");
    Files.writeString(project.resolve("b.txt"), "the user's B\n"); // after beta wrote it

    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    parent.session().subscribe(events::add);
    parent.session().submit(new Command.Undo(OptionalInt.empty(), false));
    Event.CheckpointRestored refused = next(events, Event.CheckpointRestored.class);
    settle();

    assertThat(refused.result().applied()).isFalse();
    assertThat(refused.result().summary()).isEqualTo("Nothing restored in any tab: in ↳1 Write b.txt, 1 file was changed "
        + "since by someone else and clashes with its #0: b.txt. Resolve them, or repeat with --force (what is on disk now "
        + "is kept under a rescued tag).");
    assertThat(Files.readString(project.resolve("a.txt"))).as("alpha was put back").isEqualTo("A\n");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("the user's B\n");
    assertThat(alpha.session().snapshot().live()).isEqualTo(1);
    assertThat(parent.session().snapshot().live()).isEqualTo(1);

    Event.CheckpointRestored forced = restore(parent, new Command.Undo(OptionalInt.empty(), true));
    assertThat(forced.result().summary()).startsWith("Restored #0: 1 file deleted, 1 overwritten by force (kept under ")
        .endsWith("; 1 in ↳1 Write a.txt, 1 in ↳1 Write b.txt).");
    assertThat(project.resolve("a.txt")).doesNotExist();
    assertThat(project.resolve("b.txt")).doesNotExist();
  }

  private static final String WAITING_CHILDREN = "{'responses':["
      + "{'whenLastUser':'PARENT','toolCalls':["
      + "{'name':'task','arguments':{'description':'alpha','prompt':'Write a.txt'}},"
      + "{'name':'task','arguments':{'description':'beta','prompt':'Write b.txt'}}]},"
      + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
      + "{'whenLastUser':'Write b.txt','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'B\\n'}}]},"
      + "{'whenLastUser':'PARENT','text':'Stopped.'},"
      + "{'whenLastUser':'LATER','text':'Later.'}]}";

  @Test
  void childrenWaitingForApprovalWhenTheParentsTurnIsUndoneAreWithdrawnForGood() throws Exception {
    WorkspaceTab parent = parentTab(WAITING_CHILDREN, ApprovalMode.ASK);
    CountDownLatch bothAsk = new CountDownLatch(2);
    List<String> asked = new CopyOnWriteArrayList<>();
    List<LinkedBlockingQueue<Event>> childEvents = new ArrayList<>();
    workspace.onTabOpened(child -> {
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      childEvents.add(events);
      child.session().subscribe(e -> {
        events.add(e);
        if (e instanceof Event.ToolCallProposed p && p.needsApproval()) {
          asked.add(p.call().id());
          bothAsk.countDown();
        }
      });
    });
    new Thread(() -> {
      try {
        if (bothAsk.await(20, TimeUnit.SECONDS)) {
          parent.session().submit(new Command.Cancel()); // Esc in the parent while both children ask
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }).start();
    assertThat(run(parent, "PARENT: write two files").status()).isEqualTo(TurnStatus.CANCELLED);
    run(parent, "LATER: go on");

    assertThat(restore(parent, new Command.Undo(OptionalInt.of(0), false)).result().summary())
        .contains("↳1 Write a.txt no longer waits for approval", "↳1 Write b.txt no longer waits for approval");
    restore(parent, new Command.GoTo(2, false));

    for (WorkspaceTab child : workspace.tabs().subList(1, 3)) {
      assertThat(child.session().memory().pending()).as("no approval waits in " + child.tabId()).isEmpty();
    }
    for (LinkedBlockingQueue<Event> events : childEvents) {
      assertThat(events).filteredOn(e -> e instanceof Event.CheckpointRestored r && r.pendingToolCall().isPresent())
          .as("no restore proposed a child's call again").isEmpty();
    }
    WorkspaceTab alpha = childWhoseFirstPrompt("Write a.txt");
    LinkedBlockingQueue<Event> after = new LinkedBlockingQueue<>();
    alpha.session().subscribe(after::add);
    for (String id : asked) {
      alpha.session().submit(new Command.Approve(id, false)); // the footer's stale "await approval", answered
    }
    alpha.session().idle().get(10, TimeUnit.SECONDS);
    assertThat(after).noneMatch(e -> e instanceof Event.TurnStarted);
    assertThat(project.resolve("a.txt")).doesNotExist();
  }

  private static final String SLOW_OWN_TURN = "{'responses':["
      + "{'whenLastUser':'PARENT','toolCalls':[{'name':'task','arguments':{'description':'alpha','prompt':'Write a.txt'}}]},"
      + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
      + "{'whenLastUser':'Write a.txt','text':'a.txt is written.'},"
      + "{'whenLastUser':'PARENT','text':'Done.'},"
      + "{'whenLastUser':'USER slow','text':'Never said.','delayMs':60000}]}";

  @Test
  void aChildStillRunningWhenItsParentsTurnIsUndoneIsStoppedAndGoesBackWithIt() throws Exception {
    WorkspaceTab parent = parentTab(SLOW_OWN_TURN, ApprovalMode.YOLO);
    run(parent, "PARENT: write a file");
    WorkspaceTab alpha = childWhoseFirstPrompt("Write a.txt");
    LinkedBlockingQueue<Event> childEvents = new LinkedBlockingQueue<>();
    alpha.session().subscribe(childEvents::add);
    alpha.session().submit(new Command.SendPrompt("USER slow: think"));
    next(childEvents, Event.TurnStarted.class);

    Event.CheckpointRestored undone = restore(parent, new Command.Undo(OptionalInt.empty(), false));

    assertThat(undone.result().summary()).isEqualTo("Restored #0: 1 file deleted (1 in ↳1 Write a.txt; your turn #2 in "
        + "↳1 Write a.txt undone too; ↳1 Write a.txt stopped).");
    assertThat(alpha.session().snapshot().live()).isZero();
    assertThat(project.resolve("a.txt")).doesNotExist();
  }

  private static <T extends Event> T next(LinkedBlockingQueue<Event> events, Class<T> type) throws InterruptedException {
    while (true) {
      Event e = events.poll(20, TimeUnit.SECONDS);
      assertThat(e).as("a " + type.getSimpleName() + " in time").isNotNull();
      if (type.isInstance(e)) {
        return type.cast(e);
      }
    }
  }
}
