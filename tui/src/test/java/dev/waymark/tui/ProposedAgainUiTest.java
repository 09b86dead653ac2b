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

/**
 * A session left while a call waited for approval reopens with the call asked again, not also
 * shown as a call the user interrupted (#50 item 8): quitting is not a refusal of it.
 */
class ProposedAgainUiTest {
  private static final String SCRIPT = "{\"responses\":[{\"whenLastUser\":\"go\",\"toolCalls\":[{\"name\":\"write_file\","
      + "\"arguments\":{\"path\":\"a.txt\",\"content\":\"hello\\n\"}}]},{\"text\":\"Written.\"}]}";

  @TempDir Path temp;

  @Test
  void aCallLeftWaitingIsProposedAgainWithoutANotRunLineAboveIt() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    String session;
    try (ShadowStore before = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      Workspace quit = new Workspace(before, "scripted", (tree, memory) -> TabSession.of(tree, project,
          new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
          new SessionSettings("test-model", ApprovalMode.ASK, true, null), memory));
      WorkspaceTab tab = quit.newTab();
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.subscribe(events::add);
      quit.submit(tab, List.of(new Command.SendPrompt("go")));
      while (!(events.poll(20, TimeUnit.SECONDS) instanceof Event.ToolCallProposed proposed && proposed.needsApproval())) {
        // until the call waits for approval
      }
      session = quit.id();
      quit.saveAndClose(); // as quitting does
    }

    try (VirtualUi ui = new VirtualUi(temp, 120, 30, ApprovalMode.ASK, SCRIPT)) {
      ui.type("/session load " + session);
      ui.key(KeyType.Escape); // the menu
      ui.key(KeyType.Enter);
      String screen = ui.waitFor("Proposed again");
      assertThat(screen).contains("› go", "Proposed again — allow write_file").doesNotContain("Not run", "interrupted");
    }
  }
}
