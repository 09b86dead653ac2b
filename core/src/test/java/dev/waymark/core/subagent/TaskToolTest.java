package dev.waymark.core.subagent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The task tool end to end: a parent tab's model starts subagents, each in a tab of its own, and gets their answers. */
class TaskToolTest {
  @TempDir Path temp;
  Path project;
  ShadowStore store;
  Workspace workspace;
  WorkspaceSubagents subagents;
  /** The tools offered in each request, with its last user message. */
  final List<String> requests = new CopyOnWriteArrayList<>();

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

  /** A workspace whose tabs share {@code model}, with the standard tools and task. */
  private WorkspaceTab parentTab(ChatModel model, ApprovalMode mode) {
    return parentTab(model, mode, Tools.standard());
  }

  /** As above, with {@code tools} as the standard tools. */
  private WorkspaceTab parentTab(ChatModel model, ApprovalMode mode, Tools tools) {
    List<Tool> all = new ArrayList<>(tools.all());
    WorkspaceSubagents.ChildTabs children = (tree, parent, agent) -> TabSession.of(tree, project, model,
        ChildSetup.tools(Toolset.of(all), agent), ChildSetup.settings(parent.settings(), agent), TabMemory.EMPTY,
        parent.permissions());
    subagents = new WorkspaceSubagents(children, 4, () -> List.of(AgentDefinition.GENERAL, AgentDefinition.EXPLORE));
    all.add(new TaskTool(subagents));
    workspace = new Workspace(store, "scripted", (tree, memory) -> subagents.watched(TabSession.of(tree, project, model,
        Toolset.of(all), new SessionSettings("scripted", mode, false, null), memory)));
    subagents.attach(workspace);
    return workspace.newTab();
  }

  /** Offers each request to {@code script}, noting what was offered; a child's first call waits for the other child's. */
  private ChatModel recording(ScriptedChatModel script, CyclicBarrier together) {
    return (request, listener, cancellation) -> {
      String last = request.messages().stream().filter(m -> m instanceof ChatMessage.User)
          .map(m -> ((ChatMessage.User) m).text()).reduce((a, b) -> b).orElse("");
      requests.add(last + " | " + String.join(",", request.tools().stream().map(ToolSpec::name).toList()));
      if (together != null && last.startsWith("Write") && request.messages().size() == 2) {
        try {
          together.await(20, TimeUnit.SECONDS); // both subagents are asking at once, or this times out
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
          throw new ModelException(ModelException.Kind.PROTOCOL, "the subagents did not run at once: " + e);
        }
      }
      return script.stream(request, listener, cancellation);
    };
  }

  private static Event.TurnFinished runPrompt(WorkspaceTab tab, String prompt) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.session().subscribe(events::add);
    tab.session().submit(new Command.SendPrompt(prompt));
    while (true) {
      Event e = events.poll(30, TimeUnit.SECONDS);
      assertThat(e).as("the parent's turn ends in time").isNotNull();
      if (e instanceof Event.TurnFinished f) {
        tab.session().idle().get(10, TimeUnit.SECONDS);
        return f;
      }
    }
  }

  private static List<ChatMessage.ToolResult> results(WorkspaceTab tab, int checkpoint) {
    return tab.session().memory().messages().get(checkpoint).stream()
        .filter(m -> m instanceof ChatMessage.ToolResult).map(m -> (ChatMessage.ToolResult) m).toList();
  }

  private static final String TWO_CHILDREN = json("{'responses':["
      + "{'whenLastUser':'PARENT','toolCalls':["
      + "{'name':'task','arguments':{'description':'write a','prompt':'Write a.txt'}},"
      + "{'name':'task','arguments':{'description':'write b','prompt':'Write b.txt'}}]},"
      + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
      + "{'whenLastUser':'Write b.txt','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'B\\n'}}]},"
      + "{'whenLastUser':'Write a.txt','text':'a.txt is written.'},"
      + "{'whenLastUser':'Write b.txt','text':'b.txt is written.'},"
      + "{'whenLastUser':'PARENT','text':'Both done.'}]}");

  @Test
  void twoTaskCallsRunTwoSubagentsAtOnceEachInATabOfItsOwnAndTheirAnswersAreTheResults() throws Exception {
    WorkspaceTab parent = parentTab(recording(new ScriptedChatModel(ScriptedChatModel.parse(TWO_CHILDREN, "test")),
        new CyclicBarrier(2)), ApprovalMode.YOLO);

    Event.TurnFinished done = runPrompt(parent, "PARENT: write two files");

    assertThat(done.status()).isEqualTo(TurnStatus.DONE);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\n");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("B\n");
    List<ChatMessage.ToolResult> results = results(parent, done.checkpoint());
    assertThat(results).extracting(ChatMessage.ToolResult::isError).containsExactly(false, false);
    assertThat(results.get(0).content()).startsWith("a.txt is written.");
    assertThat(results.get(1).content()).startsWith("b.txt is written.");
    List<WorkspaceTab> tabs = workspace.tabs();
    assertThat(tabs).hasSize(3);
    for (WorkspaceTab child : tabs.subList(1, 3)) {
      assertThat(subagents.child(child.tabId())).get().extracting(WorkspaceSubagents.Child::parentTab)
          .isEqualTo(parent.tabId());
      assertThat(child.session().snapshot().live()).as("the child's own checkpoint").isEqualTo(1);
    }
    // the parent's checkpoint owns each subagent's tab and the checkpoint it made there (the tabs opened in either order)
    assertThat(parent.session().snapshot().checkpoint(done.checkpoint()).orElseThrow().children())
        .containsExactlyInAnyOrder(new ChildLink(tabs.get(1).tabId(), 1, 1, false), new ChildLink(tabs.get(2).tabId(), 1, 1, false));
    assertThat(results).allSatisfy(r -> assertThat(r.content()).doesNotContain("[subagent tab"));
    // a subagent is offered no task tool: it starts no subagents of its own
    assertThat(requests).filteredOn(r -> r.startsWith("Write")).allSatisfy(r -> assertThat(r).doesNotContain("task"))
        .isNotEmpty();
    assertThat(requests).filteredOn(r -> r.startsWith("PARENT")).allSatisfy(r -> assertThat(r).contains("task"));
  }

  @Test
  void undoingTheParentsTurnTakesBackWhatItsSubagentsChangedAndRedoBringsItBack() throws Exception {
    WorkspaceTab parent = parentTab(recording(new ScriptedChatModel(ScriptedChatModel.parse(TWO_CHILDREN, "test")),
        null), ApprovalMode.YOLO);
    runPrompt(parent, "PARENT: write two files");
    List<WorkspaceTab> children = workspace.tabs().subList(1, 3);
    List<LinkedBlockingQueue<Event>> childEvents = new ArrayList<>();
    for (WorkspaceTab child : children) {
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      child.session().subscribe(events::add);
      childEvents.add(events);
    }

    parent.session().submit(new Command.Undo(OptionalInt.empty(), false));
    for (int i = 0; i < 2; i++) {
      assertThat(restoredTo(childEvents.get(i))).as("the child went back to #0").isZero();
      assertThat(children.get(i).session().snapshot().live()).isZero();
    }
    assertThat(project.resolve("a.txt")).doesNotExist();
    assertThat(project.resolve("b.txt")).doesNotExist();

    parent.session().submit(new Command.Redo(false));
    for (int i = 0; i < 2; i++) {
      assertThat(restoredTo(childEvents.get(i))).as("the child came back to #1").isEqualTo(1);
    }
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\n");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("B\n");

    // in its own tab, the subagent's step is undone as any other
    children.get(0).session().submit(new Command.Undo(OptionalInt.empty(), false));
    assertThat(restoredTo(childEvents.get(0))).isZero();
    assertThat(project.resolve("a.txt").toFile().exists() ^ project.resolve("b.txt").toFile().exists())
        .as("one of the two files is back to absent").isTrue();
  }

  private static final String ISOLATED_CHILD = json("{'responses':["
      + "{'whenLastUser':'PARENT','toolCalls':[{'name':'task','arguments':{'description':'in a view','prompt':'Write a.txt',"
      + "'isolated':true}}]},"
      + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
      + "{'whenLastUser':'Write a.txt','text':'a.txt is written.'},"
      + "{'whenLastUser':'PARENT','text':'Done.'}]}");

  private WorkspaceTab isolatingParent(ChatModel model) {
    WorkspaceTab parent = parentTab(model, ApprovalMode.YOLO);
    workspace.isolateWith(ToolSettings.DEFAULTS.withSandbox(Bwrap.required(
        SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")))).sandbox().bwrap());
    return parent;
  }

  @Test
  void anIsolatedSubagentWorksInAViewTheProjectSeesOnlyWhenItLandsAndTheParentsUndoTakesItBack() throws Exception {
    Files.writeString(project.resolve("a.txt"), "before\n");
    ScriptedChatModel script = new ScriptedChatModel(ScriptedChatModel.parse(ISOLATED_CHILD, "test"));
    List<String> seenWhileItWorked = new CopyOnWriteArrayList<>();
    WorkspaceTab parent = isolatingParent((request, listener, cancellation) -> {
      if (request.messages().stream().anyMatch(m -> m instanceof ChatMessage.ToolResult r && r.toolName().equals("write_file"))) {
        try {
          seenWhileItWorked.add(Files.readString(project.resolve("a.txt"))); // the child's write is done, not landed
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return script.stream(request, listener, cancellation);
    });

    Event.TurnFinished done = runPrompt(parent, "PARENT: change a in isolation");

    assertThat(seenWhileItWorked).containsExactly("before\n");
    ChatMessage.ToolResult result = results(parent, done.checkpoint()).get(0);
    assertThat(result.isError()).as(result.content()).isFalse();
    assertThat(result.content()).startsWith("a.txt is written.").contains("Landed on the project as #2", "a.txt");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\n");
    WorkspaceTab child = workspace.tabs().get(1);
    assertThat(parent.session().snapshot().checkpoint(done.checkpoint()).orElseThrow().children())
        .containsExactly(new ChildLink(child.tabId(), 1, 2, true));
    LinkedBlockingQueue<Event> childEvents = new LinkedBlockingQueue<>();
    child.session().subscribe(childEvents::add);

    parent.session().submit(new Command.Undo(OptionalInt.empty(), false));
    assertThat(restoredTo(childEvents)).isZero();
    assertThat(Files.readString(project.resolve("a.txt"))).as("the parent's undo took the land back").isEqualTo("before\n");
    parent.session().submit(new Command.Redo(false));
    assertThat(restoredTo(childEvents)).isEqualTo(2);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\n");
  }

  @Test
  void anIsolatedSubagentWhoseFileTheUserChangedMeanwhileIsLeftForTheUserToLand() throws Exception {
    Files.writeString(project.resolve("a.txt"), "before\n");
    ScriptedChatModel script = new ScriptedChatModel(ScriptedChatModel.parse(ISOLATED_CHILD, "test"));
    WorkspaceTab parent = isolatingParent((request, listener, cancellation) -> {
      if (request.messages().stream().anyMatch(m -> m instanceof ChatMessage.ToolResult r && r.toolName().equals("write_file"))) {
        try {
          Files.writeString(project.resolve("a.txt"), "the user's\n"); // while the subagent works
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return script.stream(request, listener, cancellation);
    });

    Event.TurnFinished done = runPrompt(parent, "PARENT: change a in isolation");

    ChatMessage.ToolResult result = results(parent, done.checkpoint()).get(0);
    assertThat(result.content()).contains("not landed", "changed under a.txt", "/land");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("the user's\n");
    WorkspaceTab child = workspace.tabs().get(1);
    assertThat(child.session().checkpoints().viewDiffers()).as("its change waits in its view").isEqualTo(1);
  }

  @Test
  void anIsolatedSubagentWhoseCommandRanWhileTheUserSavedItsFileLeavesItForTheUserToLand() throws Exception {
    Files.writeString(project.resolve("a.txt"), "one\ntwo\n");
    String childScript = json("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':[{'name':'task','arguments':{'description':'in a view','prompt':'Edit a.txt',"
        + "'isolated':true}}]},"
        + "{'whenLastUser':'Edit a.txt','toolCalls':[{'name':'run_shell','arguments':{'command':"
        + "'sed -i s/two/TWO/ a.txt; sleep 1'}}]},"
        + "{'whenLastUser':'Edit a.txt','text':'a.txt is edited.'},"
        + "{'whenLastUser':'PARENT','text':'Done.'}]}");
    ScriptedChatModel script = new ScriptedChatModel(ScriptedChatModel.parse(childScript, "test"));
    ToolSettings sandboxed = ToolSettings.DEFAULTS.withSandbox(Bwrap.required(
        SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
    WorkspaceTab parent = parentTab(script, ApprovalMode.YOLO, Tools.standard(sandboxed));
    workspace.isolateWith(sandboxed.sandbox().bwrap());
    // the user saves a.txt once the subagent's command has changed it in its view, while the command still runs
    var saved = CompletableFuture.runAsync(() -> {
      Eventually.until("the subagent's command changed a.txt in its view", () -> {
        try (var views = Files.list(store.shadowDirectory().resolveSibling("views"))) {
          return views.anyMatch(view -> Files.exists(view.resolve("upper/a.txt")));
        } catch (IOException notYet) {
          return false;
        }
      });
      try {
        Files.writeString(project.resolve("a.txt"), "one\ntwo, the user's\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    Event.TurnFinished done = runPrompt(parent, "PARENT: edit a in isolation");
    saved.get(30, TimeUnit.SECONDS);

    ChatMessage.ToolResult result = results(parent, done.checkpoint()).get(0);
    assertThat(result.content()).contains("not landed", "a.txt");
    assertThat(Files.readString(project.resolve("a.txt"))).as("the user's save is not reverted").isEqualTo("one\ntwo, the user's\n");
    WorkspaceTab child = workspace.tabs().get(1);
    assertThat(child.session().checkpoints().viewDiffers()).as("its change waits in its view").isEqualTo(1);
  }

  /** The checkpoint the next applied restore in {@code events} went to. */
  private static int restoredTo(LinkedBlockingQueue<Event> events) throws InterruptedException {
    while (true) {
      Event e = events.poll(20, TimeUnit.SECONDS);
      assertThat(e).as("a restore in time").isNotNull();
      if (e instanceof Event.CheckpointRestored r) {
        assertThat(r.result().applied()).as(r.result().summary()).isTrue();
        return r.result().target();
      }
    }
  }

  @Test
  void interruptingTheParentStopsItsSubagents() throws Exception {
    String script = json("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':["
        + "{'name':'task','arguments':{'description':'slow one','prompt':'Think one'}},"
        + "{'name':'task','arguments':{'description':'slow two','prompt':'Think two'}}]},"
        + "{'whenLastUser':'Think one','text':'Never said.','delayMs':60000},"
        + "{'whenLastUser':'Think two','text':'Never said.','delayMs':60000}]}");
    WorkspaceTab parent = parentTab(recording(new ScriptedChatModel(ScriptedChatModel.parse(script, "test")), null),
        ApprovalMode.YOLO);
    LinkedBlockingQueue<Event.TurnFinished> childrenEnded = new LinkedBlockingQueue<>();
    CountDownLatch bothStarted = new CountDownLatch(2);
    workspace.onTabOpened(child -> child.session().subscribe(e -> {
      if (e instanceof Event.TurnStarted) {
        bothStarted.countDown();
      } else if (e instanceof Event.TurnFinished f) {
        childrenEnded.add(f);
      }
    }));
    new Thread(() -> {
      try {
        if (bothStarted.await(20, TimeUnit.SECONDS)) {
          parent.session().submit(new Command.Cancel()); // Esc in the parent's tab
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }).start();

    Event.TurnFinished done = runPrompt(parent, "PARENT: think");

    assertThat(done.status()).isEqualTo(TurnStatus.CANCELLED);
    for (int i = 0; i < 2; i++) {
      Event.TurnFinished child = childrenEnded.poll(20, TimeUnit.SECONDS);
      assertThat(child).as("a subagent's turn ended").isNotNull();
      assertThat(child.status()).isEqualTo(TurnStatus.CANCELLED);
    }
    assertThat(results(parent, done.checkpoint())).extracting(ChatMessage.ToolResult::content)
        .allSatisfy(r -> assertThat(r).startsWith("The subagent was stopped before it finished"));
  }

  @Test
  void aFailedSubagentAndAnIsolatedOneAndAnUnknownAgentGiveClearResults() throws Exception {
    String script = json("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':["
        + "{'name':'task','arguments':{'description':'broken','prompt':'Break now'}},"
        + "{'name':'task','arguments':{'description':'apart','prompt':'Write c.txt','isolated':true}},"
        + "{'name':'task','arguments':{'description':'who','prompt':'Write d.txt','agent':'nobody'}}]},"
        + "{'whenLastUser':'Break now','error':{'kind':'PROTOCOL','message':'the gateway broke'}},"
        + "{'whenLastUser':'PARENT','text':'Noted.'}]}");
    WorkspaceTab parent = parentTab(recording(new ScriptedChatModel(ScriptedChatModel.parse(script, "test")), null),
        ApprovalMode.YOLO);

    Event.TurnFinished done = runPrompt(parent, "PARENT: try");

    List<ChatMessage.ToolResult> results = results(parent, done.checkpoint());
    assertThat(results).extracting(ChatMessage.ToolResult::isError).containsExactly(true, true, true);
    assertThat(results.get(0).content()).startsWith("The subagent failed: ").contains("the gateway broke");
    assertThat(results.get(1).content()).as("no sandbox was set for isolated tabs here").contains("Isolated tabs need copy-on-write layers");
    assertThat(results.get(2).content()).contains("no agent named \"nobody\"", "general, explore");
    assertThat(workspace.tabs()).as("only the failed subagent got a tab").hasSize(2);
  }

  @Test
  void aSubagentStoppedInItsTabIsSaidToBeStoppedAndGetsTheParentsMode() throws Exception {
    String script = json("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':[{'name':'task','arguments':{'description':'slow','prompt':'Think long'}}]},"
        + "{'whenLastUser':'Think long','text':'Never said.','delayMs':60000},"
        + "{'whenLastUser':'PARENT','text':'It was stopped.'}]}");
    WorkspaceTab parent = parentTab(recording(new ScriptedChatModel(ScriptedChatModel.parse(script, "test")), null),
        ApprovalMode.AUTO_EDIT);
    workspace.onTabOpened(child -> child.session().subscribe(e -> {
      if (e instanceof Event.TurnStarted) {
        child.session().submit(new Command.Cancel()); // the user stops it in its tab
      }
    }));

    Event.TurnFinished done = runPrompt(parent, "PARENT: think");

    ChatMessage.ToolResult result = results(parent, done.checkpoint()).get(0);
    assertThat(result.isError()).isTrue();
    assertThat(result.content()).startsWith("The subagent was stopped before it finished");
    WorkspaceTab child = workspace.tabs().get(1);
    assertThat(child.session().settings().approval()).isEqualTo(ApprovalMode.AUTO_EDIT);
  }
}
