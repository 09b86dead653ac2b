package dev.waymark.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
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

/** {@code /session save NAME} on a session that has a name: a rename, and the old name keeps opening it. */
class SessionNamesTest {
  @TempDir Path temp;
  ShadowStore store;
  Workspace ws;

  @BeforeEach
  void setUp() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    ws = new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse("{\"responses\":[{\"text\":\"ok\"},{\"text\":\"ok\"}]}", "test")),
        Toolset.of(Tools.standard().all()), new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory));
  }

  @AfterEach
  void tearDown() {
    ws.close();
    store.close();
  }

  private void turn(WorkspaceTab tab, String prompt) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    ws.submit(tab, List.of(new Command.SendPrompt(prompt)));
    while (!(events.poll(20, TimeUnit.SECONDS) instanceof Event.TurnFinished)) {
      // until the turn ends
    }
    tab.session().idle().get(10, TimeUnit.SECONDS);
  }

  @Test
  void renamingASessionKeepsItsEarlierNamesOpeningIt() throws Exception {
    WorkspaceTab tab = ws.newTab();
    turn(tab, "hello");
    assertThat(ws.save("first")).doesNotContain("earlier name");
    String told = ws.save("second");
    assertThat(told).contains("Saved session second (" + ws.id() + ")", "Its earlier name \"first\" still opens it.");
    ws.save("third");

    for (String name : List.of("first", "second", "third")) {
      assertThat(ws.files().load(name).id()).as(name).isEqualTo(ws.id());
    }
    assertThat(ws.files().load("first").name()).isEqualTo("third");
    assertThat(ws.files().list()).hasSize(1).allSatisfy(l -> assertThat(l.name()).isEqualTo("third"));

    ws.save("first"); // taking an earlier name back makes it the name again, not also a former one
    assertThat(ws.files().load(ws.id()).formerNames()).containsExactly("second", "third");
  }
}
