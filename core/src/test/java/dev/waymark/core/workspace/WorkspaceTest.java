package dev.waymark.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.mcp.McpServerConfig;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceTest {
  private static final String SCRIPT = ("{'responses':["
      + "{'whenLastUser':'write','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'hi\\n'}}]},"
      + "{'whenLastUser':'write','text':'Wrote a.txt.'},"
      + "{'whenLastUser':'long','text':'A long answer that is cut short by the user.','chunkDelayMs':400},"
      + "{'whenLastUser':'fail','error':{'kind':'PROTOCOL','message':'the gateway broke'}},"
      + "{'text':'ok'},{'text':'ok'},{'text':'ok'},{'text':'ok'}]}").replace('\'', '"');

  @TempDir Path temp;
  Path project;
  ShadowStore store;
  final List<Workspace> workspaces = new ArrayList<>();
  final List<String> notices = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
  }

  @AfterEach
  void tearDown() {
    workspaces.forEach(Workspace::close);
    store.close();
  }

  private Workspace workspace() {
    return workspace(ApprovalMode.YOLO);
  }

  private Workspace workspace(ApprovalMode mode) {
    Workspace ws = new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", mode, false, null), memory));
    ws.onNotice(notices::add);
    workspaces.add(ws);
    return ws;
  }

  private static Event await(LinkedBlockingQueue<Event> events, Predicate<Event> what) throws Exception {
    while (true) {
      Event e = events.poll(20, TimeUnit.SECONDS);
      assertThat(e).as("an event in time").isNotNull();
      if (what.test(e)) {
        return e;
      }
    }
  }

  private static Predicate<Event> finished(int n) {
    return e -> e instanceof Event.TurnFinished f && f.checkpoint() == n;
  }

  /** Runs a prompt in a tab through the workspace (saved first) and waits for its turn to end. */
  private static void turn(Workspace ws, WorkspaceTab tab, LinkedBlockingQueue<Event> events, String prompt, int n)
      throws Exception {
    ws.submit(tab, List.of(new Command.SendPrompt(prompt)));
    await(events, finished(n));
    tab.session().idle().get(10, TimeUnit.SECONDS);
  }

  @Test
  void anMcpServerThatFailedBeforeTheFrontEndListenedIsStillToldToIt() throws Exception {
    Workspace ws = new Workspace(store, "scripted", (tree, memory) -> {
      throw new AssertionError("no tab is opened");
    });
    workspaces.add(ws);
    try (McpServers servers = McpServers.start(
        List.of(McpServerConfig.stdio("gone", "/nonexistent/mcp-server", List.of())),
        new McpServers.Options(project, Map.of(), Set.of(),
            ToolSettings.DEFAULTS))) {
      ws.mcp(servers);
      servers.awaitStatus(); // it failed before anyone listened: exec and the interface listen only later
      List<String> told = new CopyOnWriteArrayList<>();
      ws.onNotice(told::add);
      assertThat(told).singleElement().asString()
          .contains("MCP server gone did not start", "/nonexistent/mcp-server is not an executable file");
      told.clear();
      ws.onNotice(told::add);
      assertThat(told).as("told once").isEmpty();
    }
  }

  @Test
  void commandsSubmittedThroughTheWorkspaceGetTheirIdsAndAnErrorNamesTheFailedOne() throws Exception {
    Workspace ws = workspace();
    WorkspaceTab tab = ws.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);

    List<Long> prompt = ws.submit(tab, List.of(new Command.SendPrompt("write a.txt"))).get(10, TimeUnit.SECONDS);
    await(events, finished(1));
    List<Long> failing = ws.submit(tab, List.of(new Command.GoTo(42, false))).get(10, TimeUnit.SECONDS);

    assertThat(prompt).hasSize(1);
    assertThat(failing).singleElement().satisfies(id -> assertThat(id).isGreaterThan(prompt.get(0)));
    Event.Error error = (Event.Error) await(events, e -> e instanceof Event.Error);
    assertThat(error.submission()).hasValue(failing.get(0));
  }

  @Test
  void aRevertsNoticeComesBackWithTheSessionAsTheChatOfTheCheckpointItMade() throws Exception {
    Workspace first = workspace();
    WorkspaceTab tab = first.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(first, tab, events, "write a.txt", 1);
    first.submit(tab, List.of(new Command.Revert(1, 1, List.of(), false)));
    Event.CheckpointRestored reverted = (Event.CheckpointRestored) await(events, e -> e instanceof Event.CheckpointRestored);
    assertThat(reverted.result().summary()).startsWith("Reverted #1 as #2");
    tab.session().idle().get(10, TimeUnit.SECONDS);
    first.saveAndClose();

    Workspace second = workspace();
    List<Event> received = new ArrayList<>();
    second.open(second.files().latest().orElseThrow(), true).tabs().get(0).subscribe(received::add);
    Event.TabRestored restored = (Event.TabRestored) received.get(0);
    assertThat(restored.live()).isEqualTo(2);
    List<Event> made = restored.checkpoints().get(1).history();
    assertThat(made).singleElement().isInstanceOfSatisfying(Event.CheckpointRestored.class, r -> {
      assertThat(r.result().summary()).isEqualTo(reverted.result().summary());
      assertThat(r.result().livePath()).containsExactly(2);
    });
  }

  @Test
  void aReopenedTabTellsWhatItsChatShowedLiveToldAsTheEventsThatShowedIt() throws Exception {
    Workspace first = workspace();
    WorkspaceTab tab = first.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(first, tab, events, "write a.txt", 1);
    first.submit(tab, List.of(new Command.SendPrompt("a long one")));
    await(events, e -> e instanceof Event.AssistantDelta);
    tab.session().submit(new Command.Cancel());
    await(events, finished(2));
    turn(first, tab, events, "fail now", 3);
    first.saveAndClose();

    Workspace second = workspace();
    Workspace.Opened opened = second.open(second.files().latest().orElseThrow());
    List<Event> received = new ArrayList<>();
    opened.tabs().get(0).subscribe(received::add);

    assertThat(received).hasSize(2).first().isInstanceOf(Event.TabRestored.class);
    Event.TabRestored restored = (Event.TabRestored) received.get(0);
    assertThat(restored.live()).isEqualTo(3);
    // the footer's context figure at once, estimated, not only after the next turn
    assertThat(received.get(1)).isInstanceOfSatisfying(Event.ContextUsed.class, used -> {
      assertThat(used.checkpoint()).isEqualTo(3);
      assertThat(used.tokens()).isPositive();
      assertThat(used.estimated()).isTrue();
    });
    assertThat(restored.livePath()).containsExactly(0, 1, 2, 3);
    List<Event> one = restored.checkpoints().get(0).history();
    assertThat(one.get(0)).isEqualTo(new Event.TurnStarted(1, 0, "write a.txt"));
    assertThat(one).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(Event.ToolCallProposed.class,
        p -> assertThat(p.preview()).contains("+hi")));
    assertThat(one).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(Event.ToolCallFinished.class,
        f -> assertThat(f.result()).contains("a.txt")));
    assertThat(one).contains(new Event.AssistantDelta(1, "Wrote a.txt."));
    List<Event> two = restored.checkpoints().get(1).history();
    assertThat(two).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(Event.AssistantDelta.class,
        d -> assertThat(d.text()).startsWith("A long").isNotEqualTo("A long answer that is cut short by the user.")));
    assertThat(two.get(two.size() - 1)).isEqualTo(new Event.TurnFinished(2, TurnStatus.CANCELLED, Optional.empty()));
    List<Event> three = restored.checkpoints().get(2).history();
    assertThat(three).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(Event.Error.class,
        r -> assertThat(r.message()).contains("the gateway broke")));
    assertThat(three.get(three.size() - 1)).isEqualTo(new Event.TurnFinished(3, TurnStatus.FAILED, Optional.empty()));

    // saved again, the reopened tab keeps its history
    second.save(null);
    Workspace third = workspace();
    List<Event> again = new ArrayList<>();
    third.open(third.files().latest().orElseThrow(), true).tabs().get(0).subscribe(again::add);
    assertThat(again.get(0)).isEqualTo(restored);
  }

  @Test
  void aSubagentsTabComesBackMarkedAsItsParentsAndAUsersTabAsNobodys() throws Exception {
    Workspace first = workspace();
    WorkspaceTab parent = first.newTab();
    WorkspaceTab child = first.newTab((tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory), parent.tabId());
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    parent.subscribe(events::add);
    turn(first, parent, events, "hand work out", 1);
    first.saveAndClose();
    assertThat(Files.readString(first.files().file(first.id()))).contains("\"subagentOf\" : \"" + parent.tabId() + "\"");

    Workspace second = workspace();
    Workspace.Opened opened = second.open(second.files().load(first.id()));
    assertThat(opened.tabs()).extracting(WorkspaceTab::tabId).containsExactly(parent.tabId(), child.tabId());
    assertThat(opened.tabs().get(0).subagentOf()).isEmpty();
    assertThat(opened.tabs().get(1).subagentOf()).hasValue(parent.tabId());
  }

  @Test
  void eachTabComesBackWithItsModeAndModelAndYoloOnlyInARunStartedInYolo() throws Exception {
    Workspace first = workspace(ApprovalMode.ASK);
    WorkspaceTab planning = first.newTab();
    WorkspaceTab reckless = first.newTab();
    planning.session().submit(new Command.SetMode("plan"));
    planning.session().submit(new Command.SetModel("other-model"));
    reckless.session().submit(new Command.SetMode("yolo"));
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    planning.subscribe(events::add);
    turn(first, planning, events, "look around", 1);
    first.saveAndClose();
    assertThat(Files.readString(first.files().file(first.id()))).contains("\"approval\" : \"plan\"", "\"other-model\"");

    Workspace second = workspace(ApprovalMode.ASK);
    Workspace.Opened opened = second.open(second.files().load(first.id()));
    for (WorkspaceTab t : opened.tabs()) {
      t.session().idle().get(10, TimeUnit.SECONDS);
    }
    assertThat(opened.tabs().get(0).session().settings().approval()).isEqualTo(ApprovalMode.PLAN);
    assertThat(opened.tabs().get(0).session().settings().model()).isEqualTo("other-model");
    assertThat(opened.tabs().get(1).session().settings().approval()).isEqualTo(ApprovalMode.ASK);
    assertThat(opened.notes()).anySatisfy(n -> assertThat(n).contains("yolo", "opens in ask"));
    second.close();
    workspaces.remove(second);

    Workspace third = workspace(ApprovalMode.YOLO);
    Workspace.Opened inYolo = third.open(third.files().load(first.id()));
    inYolo.tabs().get(1).session().idle().get(10, TimeUnit.SECONDS);
    assertThat(inYolo.tabs().get(1).session().settings().approval()).isEqualTo(ApprovalMode.YOLO);
  }

  @Test
  void aModelAndModeGivenNowWinOverTheOnesTheTabSavedAndTheNotesSaySo() throws Exception {
    Workspace first = workspace(ApprovalMode.ASK);
    WorkspaceTab tab = first.newTab();
    tab.session().submit(new Command.SetMode("auto"));
    tab.session().submit(new Command.SetModel("old-model"));
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(first, tab, events, "look around", 1);
    first.saveAndClose();

    // as `waymark --continue --model scripted --approval plan`
    Workspace second = workspace(ApprovalMode.PLAN);
    second.givenNow(new GivenNow(true, true));
    Workspace.Opened opened = second.open(second.files().load(first.id()));
    WorkspaceTab back = opened.tabs().get(0);
    back.session().idle().get(10, TimeUnit.SECONDS);
    assertThat(back.session().settings().approval()).isEqualTo(ApprovalMode.PLAN);
    assertThat(back.session().settings().model()).isEqualTo("scripted");
    assertThat(opened.notes()).anySatisfy(n -> assertThat(n).contains("auto", "opens in plan", "--approval"));
    assertThat(opened.notes()).anySatisfy(n -> assertThat(n).contains("old-model", "scripted", "--model"));
    second.close();
    workspaces.remove(second);

    // a yolo tab opened with --approval yolo is in yolo; with only --model, the saved mode comes back
    Workspace third = workspace(ApprovalMode.AUTO_EDIT);
    third.givenNow(new GivenNow(true, false));
    WorkspaceTab again = third.open(third.files().load(first.id())).tabs().get(0);
    again.session().idle().get(10, TimeUnit.SECONDS);
    assertThat(again.session().settings().approval()).isEqualTo(ApprovalMode.AUTO);
    assertThat(again.session().settings().model()).isEqualTo("scripted");
  }

  @Test
  void aSessionFromBeforeModesWerePerTabOpensInTheModeOfTheRun() throws Exception {
    Workspace first = workspace(ApprovalMode.ASK);
    WorkspaceTab tab = first.newTab();
    tab.session().submit(new Command.SetMode("plan"));
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(first, tab, events, "look around", 1);
    first.saveAndClose();
    Path file = first.files().file(first.id());
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = (ObjectNode) json.readTree(file.toFile());
    root.withArray("tabs").forEach(t -> ((ObjectNode) t).remove("approval"));
    Files.writeString(file, json.writeValueAsString(root));

    Workspace second = workspace(ApprovalMode.AUTO_EDIT);
    WorkspaceTab back = second.open(second.files().load(first.id())).tabs().get(0);
    back.session().idle().get(10, TimeUnit.SECONDS);
    assertThat(back.session().settings().approval()).isEqualTo(ApprovalMode.AUTO_EDIT);
  }

  @Test
  void aSessionFileOfTheFirstFormatStillLoadsWithItsChatToldFromItsMessages() throws Exception {
    Workspace first = workspace();
    WorkspaceTab tab = first.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(first, tab, events, "write a.txt", 1);
    first.saveAndClose();
    // as Waymark wrote it before transcripts: schema 1, no transcript
    Path file = first.files().file(first.id());
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = (ObjectNode) json.readTree(file.toFile());
    root.put("schemaVersion", 1);
    root.withArray("tabs").forEach(t -> t.withArray("checkpoints").forEach(cp -> ((ObjectNode) cp).remove("transcript")));
    Files.writeString(file, json.writeValueAsString(root));
    assertThat(Files.readString(file)).doesNotContain("transcript");

    Workspace second = workspace();
    List<Event> received = new ArrayList<>();
    second.open(second.files().load(first.id())).tabs().get(0).subscribe(received::add);
    Event.TabRestored restored = (Event.TabRestored) received.get(0);
    List<Event> one = restored.checkpoints().get(0).history();
    assertThat(one.get(0)).isEqualTo(new Event.TurnStarted(1, 0, "write a.txt"));
    assertThat(one).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(Event.ToolCallProposed.class,
        p -> assertThat(p.summary()).isEqualTo("a.txt")));
    assertThat(one).anySatisfy(e -> assertThat(e).isInstanceOf(Event.ToolCallFinished.class));
    assertThat(one).contains(new Event.AssistantDelta(1, "Wrote a.txt."));
    assertThat(one.get(one.size() - 1)).isInstanceOf(Event.TurnFinished.class);
    assertThat(second.saveAndClose()).startsWith("Saved session");
    assertThat(Files.readString(file)).contains("\"schemaVersion\" : " + SessionStore.SCHEMA_VERSION, "transcript");
  }

  @Test
  void aSessionAnotherWorkspaceChangedInATabHeldHereTooIsLeftAsItIsAndTheTabsHereAreSavedAsANewSession() throws Exception {
    Workspace start = workspace();
    WorkspaceTab tab = start.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(start, tab, events, "write a.txt", 1); // a checkpoint with a tag
    start.saveAndClose();
    String id = start.id();

    Workspace one = workspace();
    Workspace two = workspace();
    WorkspaceTab inOne = one.open(one.files().load(id)).tabs().get(0);
    WorkspaceTab inTwo = two.open(two.files().load(id)).tabs().get(0);
    LinkedBlockingQueue<Event> oneEvents = new LinkedBlockingQueue<>();
    inOne.subscribe(oneEvents::add);
    turn(one, inOne, oneEvents, "from one", 2);
    assertThat(one.save(null)).startsWith("Saved session " + id);
    String savedByOne = Files.readString(one.files().file(id));

    LinkedBlockingQueue<Event> twoEvents = new LinkedBlockingQueue<>();
    inTwo.subscribe(twoEvents::add);
    turn(two, inTwo, twoEvents, "from two", 2);
    String told = two.save(null);

    assertThat(Files.readString(one.files().file(id))).as("never overwritten").isEqualTo(savedByOne);
    assertThat(two.id()).isNotEqualTo(id);
    // the first save that met the change (the one before the turn) told it, once
    assertThat(notices).containsExactly("Session " + id + " was changed by another Waymark process since it was opened "
        + "here: it is left as it is, and the tabs here are saved as a new session " + two.id() + " (waymark --resume "
        + two.id() + ").");
    assertThat(told).isEqualTo("Saved session " + two.id() + " to " + two.files().file(two.id()) + ".");
    assertThat(Files.readString(two.files().file(two.id()))).contains("from two").doesNotContain("from one");

    // both sessions name the tab: deleting one keeps the tags the other needs
    one.close();
    two.close();
    Workspace looking = workspace();
    assertThat(store.tabIds()).contains(inOne.tabId());
    looking.deleteSession(two.id());
    assertThat(store.tabIds()).contains(inOne.tabId());
    looking.deleteSession(id);
    assertThat(store.tabIds()).doesNotContain(inOne.tabId());
  }

  @Test
  void aSessionWhoseTabAnotherProcessHoldsIsNotDeletedAndKeepsEveryTag() throws Exception {
    Workspace holding = workspace();
    WorkspaceTab held = holding.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    held.subscribe(events::add);
    turn(holding, held, events, "write", 1);
    holding.save(null);
    String id = holding.id();
    Set<String> tabsBefore = store.tabIds();

    // another process on the same project: its own store, its own session
    try (ShadowStore other = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      Workspace elsewhere = new Workspace(other, "scripted", (tree, memory) -> {
        throw new AssertionError("no tab is opened here");
      });
      try {
        assertThatThrownBy(() -> elsewhere.deleteSession(id))
            .hasMessageContaining("Tab " + held.tabId() + " is in use by process " + ProcessHandle.current().pid())
            .hasMessageContaining("Nothing was deleted.");
      } finally {
        elsewhere.close();
      }
      assertThat(other.tabIds()).isEqualTo(tabsBefore).contains(held.tabId());
    }
    assertThat(Files.exists(holding.files().file(id))).as("the session file is kept").isTrue();

    // once the holder lets go, the session can be deleted
    holding.close();
    Workspace later = workspace();
    later.deleteSession(id);
    assertThat(store.tabIds()).doesNotContain(held.tabId());
  }

  @Test
  void aTabAnotherWorkspaceAddedToTheSessionIsKeptBesideTheOnesHere() throws Exception {
    Workspace start = workspace();
    WorkspaceTab tab = start.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(start, tab, events, "hello", 1);
    start.saveAndClose();
    String id = start.id();

    Workspace one = workspace();
    Workspace two = workspace();
    WorkspaceTab inOne = one.open(one.files().load(id)).tabs().get(0);
    two.open(two.files().load(id));
    WorkspaceTab added = two.newTab();
    LinkedBlockingQueue<Event> twoEvents = new LinkedBlockingQueue<>();
    added.subscribe(twoEvents::add);
    turn(two, added, twoEvents, "in a new tab", 1);
    two.save(null);

    LinkedBlockingQueue<Event> oneEvents = new LinkedBlockingQueue<>();
    inOne.subscribe(oneEvents::add);
    turn(one, inOne, oneEvents, "from one", 2);
    String told = one.save(null);

    assertThat(one.id()).isEqualTo(id);
    assertThat(String.join("\n", notices) + told).contains("saved by another Waymark process too", added.tabId());
    SessionFile merged = one.files().load(id);
    assertThat(merged.tabs()).extracting(SessionFile.Tab::tabId).containsExactly(inOne.tabId(), added.tabId());
    assertThat(Files.readString(one.files().file(id))).contains("from one", "in a new tab");
  }

  @Test
  void aSessionDeletedByAnotherProcessIsSavedAsANewOneNotBroughtBackUnderItsId() throws Exception {
    Workspace ws = workspace();
    WorkspaceTab tab = ws.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    turn(ws, tab, events, "hello", 1);
    ws.save(null);
    String id = ws.id();
    Files.delete(ws.files().file(id));

    String told = ws.save("kept");
    assertThat(ws.id()).isNotEqualTo(id);
    assertThat(told).startsWith("Session " + id + " was deleted by another process; the tabs here are saved as a new session kept ("
        + ws.id() + ") (waymark --resume " + ws.id() + ").");
    assertThat(Files.exists(ws.files().file(id))).isFalse();
    assertThat(ws.files().load("kept").tabs()).extracting(SessionFile.Tab::tabId).containsExactly(tab.tabId());
  }
}
