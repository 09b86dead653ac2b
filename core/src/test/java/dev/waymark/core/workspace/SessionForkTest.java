package dev.waymark.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TagNames;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A session another Waymark holds is forked, not refused: a copy under new ids, the original untouched (#39 item 9). */
class SessionForkTest {
  private static final String SCRIPT = ("{'responses':["
      + "{'whenLastUser':'write','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'hi\\n'}}]},"
      + "{'whenLastUser':'write','text':'Wrote a.txt.'},"
      + "{'text':'ok'},{'text':'ok'}]}").replace('\'', '"');

  @TempDir Path temp;
  Path project;
  ShadowStore holder;
  ShadowStore here;
  final List<Workspace> workspaces = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    holder = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    here = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT); // another Waymark
  }

  @AfterEach
  void tearDown() {
    workspaces.forEach(Workspace::close);
    here.close();
    holder.close();
  }

  private Workspace workspace(ShadowStore store) {
    Workspace ws = new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory));
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

  @Test
  void aSessionOpenElsewhereIsForkedUnderNewIdsWithItsCheckpointsAndTheOriginalIsLeftAsItWas() throws Exception {
    Workspace first = workspace(holder);
    WorkspaceTab tab = first.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    first.submit(tab, List.of(new Command.SendPrompt("write a.txt")));
    await(events, e -> e instanceof Event.TurnFinished);
    tab.session().idle().get(10, TimeUnit.SECONDS);
    first.save(null);
    Path originalFile = first.files().file(first.id());
    byte[] originalBytes = Files.readAllBytes(originalFile);

    Workspace second = workspace(here);
    SessionFile original = second.files().load(first.id());
    assertThatThrownBy(() -> second.open(original)).as("as before: the tab is held").isInstanceOf(CheckpointException.class);
    assertThat(SessionFork.openElsewhere(here, original)).hasValueSatisfying(why -> assertThat(why)
        .contains("Session " + original.id() + " is open in another Waymark", "process " + ProcessHandle.current().pid()));

    SessionFork.Forked forked = SessionFork.fork(here, second.files(), original);
    SessionFile copy = forked.session();
    assertThat(copy.id()).isNotEqualTo(original.id());
    assertThat(copy.tabs()).singleElement().satisfies(t -> assertThat(t.tabId()).isNotEqualTo(tab.tabId()));
    assertThat(copy.activeTab()).isEqualTo(copy.tabs().get(0).tabId());
    assertThat(second.files().load(copy.id())).isEqualTo(copy);
    assertThat(SessionFork.openElsewhere(here, copy)).isEmpty();

    Workspace.Opened opened = second.open(copy);
    WorkspaceTab mine = opened.tabs().get(0);
    assertThat(opened.notes()).as("every tag is there: none recreated").isEmpty();
    LinkedBlockingQueue<Event> mineEvents = new LinkedBlockingQueue<>();
    mine.subscribe(mineEvents::add);
    second.submit(mine, List.of(Command.Undo.one()));
    await(mineEvents, e -> e instanceof Event.CheckpointRestored);
    assertThat(project.resolve("a.txt")).as("the fork's undo works on the project").doesNotExist();

    assertThat(Files.readAllBytes(originalFile)).as("the original's file").isEqualTo(originalBytes);
    String forkTab = mine.tabId();
    second.close();
    workspaces.remove(second);
    CheckpointTree reloaded = here.loadTab(forkTab);
    assertThat(reloaded.checkpoints()).as("the fork's tags are read as its own").anySatisfy(cp -> {
      assertThat(cp.number()).isEqualTo(1);
      assertThat(cp.tag()).hasValue(TagNames.tabPrefix(forkTab) + 1);
    });
    reloaded.release();

    first.close();
    workspaces.remove(first);
    CheckpointTree kept = holder.loadTab(tab.tabId());
    Checkpoint one = kept.checkpoints().stream().filter(cp -> cp.number() == 1).findFirst().orElseThrow();
    assertThat(one.tag()).as("the original's tag").hasValue(TagNames.tabPrefix(tab.tabId()) + 1);
    assertThat(one.commit().map(c -> c.name())).hasValue(original.tabs().get(0).checkpoints().stream()
        .filter(cp -> cp.number() == 1).findFirst().orElseThrow().commit());
    kept.release();
  }

  @Test
  void aForksParentCheckpointsOwnTheForksCopiesOfTheirChildTabs() {
    Workspace ws = workspace(here);
    SessionFile.Checkpoint start = new SessionFile.Checkpoint(0, -1, "done", Instant.EPOCH, null, null, List.of(), List.of(),
        List.of(), null, null);
    SessionFile.Checkpoint delegated = new SessionFile.Checkpoint(1, 0, "done", Instant.EPOCH, null, null, List.of(),
        List.of(), List.of(), null, null, null, List.of(new SessionFile.Child("tchild0000001", 1, 1, false)));
    SessionFile.Checkpoint childsOwn = new SessionFile.Checkpoint(1, 0, "done", Instant.EPOCH, null, null, List.of(),
        List.of(), List.of(), null, null);
    SessionFile original = new SessionFile(SessionStore.SCHEMA_VERSION, "20261207-000000-abcdef", null, project.toString(),
        Instant.EPOCH, Instant.EPOCH, "tparent000001", List.of(
            new SessionFile.Tab("tparent000001", "p", "scripted", "m", "", 1, 1, List.of(), List.of(start, delegated), Map.of()),
            new SessionFile.Tab("tchild0000001", "c", "scripted", "m", "", 1, 1, List.of(), List.of(start, childsOwn), Map.of())
                .withSubagentOf(Optional.of("tparent000001"))));

    SessionFork.Forked forked = SessionFork.fork(here, ws.files(), original);

    String parentCopy = forked.tabIds().get("tparent000001");
    String childCopy = forked.tabIds().get("tchild0000001");
    SessionFile.Tab parent = forked.session().tabs().stream().filter(t -> t.tabId().equals(parentCopy)).findFirst().orElseThrow();
    assertThat(SessionCodec.children(parent.checkpoints().get(1))).containsExactly(new ChildLink(childCopy, 1, 1, false));
  }

  @Test
  void aSessionWhoseOnlyTabIsIsolatedIsNotForkedAndTheRefusalSaysWhyWithoutNamingAnotherWaymark() throws Exception {
    Optional<Path> bwrap = Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))).bwrap();
    Workspace first = workspace(holder);
    WorkspaceTab isolated = first.newIsolatedTab(bwrap);
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    isolated.subscribe(events::add);
    first.submit(isolated, List.of(new Command.SendPrompt("write a.txt")));
    await(events, e -> e instanceof Event.TurnFinished);
    isolated.session().idle().get(10, TimeUnit.SECONDS);
    first.save(null);
    first.close(); // no other Waymark has it open now
    workspaces.remove(first);

    Workspace second = workspace(here);
    SessionFile original = second.files().load(first.id());
    int sessions = second.files().list().size();
    assertThatThrownBy(() -> SessionFork.fork(here, second.files(), original)).isInstanceOf(SessionException.class)
        .hasMessageContaining("was not forked: its only tab, " + isolated.tabId() + ", is isolated")
        .hasMessageContaining("isolated tabs are not forked (their files are a view of their own")
        .hasMessageNotContaining("other Waymark")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(second.files().list()).as("no empty fork is saved").hasSize(sessions);
  }
}
