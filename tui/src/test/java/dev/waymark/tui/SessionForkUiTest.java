package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
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
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /session load} of a session another Waymark holds offers to fork it, and the fork opens (#39 item 9). */
class SessionForkUiTest {
  @TempDir Path temp;

  @Test
  void loadingASessionOpenElsewhereOffersAForkThatOpensWithItsChatTheOriginalHeldThereStill() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    try (ShadowStore held = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      Workspace other = new Workspace(held, "scripted", (tree, memory) -> TabSession.of(tree, project,
          new ScriptedChatModel(ScriptedChatModel.parse("{\"responses\":[{\"text\":\"Hello from there.\"}]}", "test")),
          Toolset.of(Tools.standard().all()), new SessionSettings("test-model", ApprovalMode.ASK, true, null), memory));
      WorkspaceTab tab = other.newTab();
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.subscribe(events::add);
      other.submit(tab, List.of(new Command.SendPrompt("say hello")));
      while (!(events.poll(20, TimeUnit.SECONDS) instanceof Event.TurnFinished)) {
        // until the turn ends
      }
      tab.session().idle().get(10, TimeUnit.SECONDS);
      other.save(null);
      String session = other.id();

      try (VirtualUi ui = new VirtualUi(temp, 120, 30, ApprovalMode.ASK, "{'responses':[]}")) {
        ui.type("/session load " + session);
        ui.key(KeyType.Escape); // the menu
        ui.key(KeyType.Enter);
        assertThat(ui.waitFor("fork it?")).contains("Session " + session + " is open in another Waymark", "Fork it", "Cancel");
        ui.key(KeyType.Enter);
        String screen = ui.waitFor("forked as");
        assertThat(screen).contains("› say hello", "Hello from there.");
        assertThat(ui.workspace.id()).isNotEqualTo(session);
        assertThat(ui.workspace.tabs()).singleElement().satisfies(t -> assertThat(t.tabId()).isNotEqualTo(tab.tabId()));
      }
      assertThat(other.files().load(session).tabs()).as("the original session keeps its tab")
          .singleElement().satisfies(t -> assertThat(t.tabId()).isEqualTo(tab.tabId()));
      other.close();
    }
  }
}
