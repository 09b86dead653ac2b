package dev.waymark.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compare and Take name another tab of the session by id or place, through the protocol. */
class CompareTabsTest {
  private static final String SCRIPT = ("{'responses':["
      + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1\\nfrom one\\n3\\n'}}]},"
      + "{'whenLastUser':'one','text':'ok'},"
      + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1\\nfrom two\\n3\\n'}}]},"
      + "{'whenLastUser':'two','text':'ok'}]}").replace('\'', '"');

  @TempDir Path temp;
  Path project;
  ShadowStore store;
  Workspace ws;

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    ws = new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory));
  }

  @AfterEach
  void tearDown() {
    ws.close();
    store.close();
  }

  private static <T extends Event> T answer(WorkspaceTab tab, LinkedBlockingQueue<Event> events, Command command,
      Class<T> type) throws Exception {
    events.clear();
    tab.session().submit(command);
    tab.session().idle().get(20, TimeUnit.SECONDS);
    for (Event e : events) {
      if (type.isInstance(e)) {
        return type.cast(e);
      }
      if (e instanceof Event.Error error) {
        throw new AssertionError(error.message());
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in " + events);
  }

  @Test
  void aCheckpointOfAnotherTabIsNamedByItsPlaceOrIdAndOneOfItsHunksTaken() throws Exception {
    WorkspaceTab one = ws.newTab();
    WorkspaceTab two = ws.newTab();
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    one.session().subscribe(events::add);
    ws.submit(one, List.of(new Command.SendPrompt("one"))).get();
    one.session().idle().get(20, TimeUnit.SECONDS);
    ws.submit(two, List.of(new Command.SendPrompt("two"))).get();
    two.session().idle().get(20, TimeUnit.SECONDS);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("1\nfrom two\n3\n");

    ComparisonView byPlace = answer(one, events, new Command.Compare(CheckpointRef.parse("live"),
        CheckpointRef.parse("2:1"), List.of()), Event.ComparisonReady.class).comparison();
    assertThat(byPlace.to()).isEqualTo(new CheckpointRef(two.tabId(), "1"));
    assertThat(byPlace.unified()).contains("-from one\n+from two\n");
    ComparisonView byId = answer(one, events, new Command.Compare(CheckpointRef.of(1),
        CheckpointRef.parse(two.tabId() + ":live"), List.of("a.txt")), Event.ComparisonReady.class).comparison();
    assertThat(byId.files()).isEqualTo(byPlace.files());

    Event.CheckpointRestored taken = answer(one, events, new Command.Take(byPlace.from(), byPlace.to(), "a.txt", 0, false,
        false), Event.CheckpointRestored.class);
    assertThat(taken.result().applied()).as(taken.result().summary()).isTrue();
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("1\nfrom one\n3\n");
    assertThat(one.session().snapshot().live()).isEqualTo(2);
    assertThat(one.session().conversation().toString()).contains("The user took hunk 1 of a.txt from #1, as #1 holds it");

    events.clear();
    one.session().submit(new Command.Compare(CheckpointRef.of(0), CheckpointRef.parse("9:1"), List.of()));
    one.session().idle().get(20, TimeUnit.SECONDS);
    assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(Event.Error.class,
        error -> assertThat(error.message()).contains("This session has no tab 9")));
  }
}
