package dev.waymark.app;

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
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A headless command locks the one tab it acts on, so it works while the interface holds another tab of the session. */
class TabLockTest {
  @TempDir Path temp;

  private static final String SCRIPT = ("{'responses':["
      + "{'whenLastUser':'write a','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'a'}}]},"
      + "{'whenLastUser':'write a','text':'ok'},"
      + "{'whenLastUser':'write b','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'b'}}]},"
      + "{'whenLastUser':'write b','text':'ok'}]}").replace('\'', '"');

  private Workspace workspace(ShadowStore store, Path project) {
    return new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory));
  }

  private static void turn(Workspace ws, WorkspaceTab tab, String prompt) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    ws.submit(tab, List.of(new Command.SendPrompt(prompt)));
    while (!(events.poll(20, TimeUnit.SECONDS) instanceof Event.TurnFinished)) {
      // until the turn ends
    }
    tab.session().idle().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aCommandOnOneTabWorksWhileAnotherProcessHoldsAnotherAndARefusalNamesTheTabAskedFor() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    WaymarkHome home = new WaymarkHome(temp.resolve("home"));
    String session;
    String a;
    String b;
    try (ShadowStore store = ShadowStore.open(project, home, RetentionPolicy.DEFAULT)) {
      Workspace ws = workspace(store, project);
      WorkspaceTab first = ws.newTab();
      WorkspaceTab second = ws.newTab();
      turn(ws, first, "write a");
      turn(ws, second, "write b");
      ws.show(first);
      ws.saveAndClose();
      session = ws.id();
      a = first.tabId();
      b = second.tabId();
    }

    try (ShadowStore held = ShadowStore.open(project, home, RetentionPolicy.DEFAULT)) {
      Workspace ui = workspace(held, project); // as an interface that has tab a open
      ui.open(ui.files().load(session), false, a::equals);

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int undoB = Main.run(new String[] {"checkpoints", "undo", "-C", project.toString(), "--session", session, "--tab", b},
          home, new PrintWriter(out, true), new PrintWriter(err, true));
      assertThat(undoB).as(err.toString()).isZero();
      assertThat(project.resolve("b.txt")).doesNotExist();
      assertThat(project.resolve("a.txt")).hasContent("a");

      err.getBuffer().setLength(0);
      int undoA = Main.run(new String[] {"checkpoints", "undo", "-C", project.toString(), "--session", session, "--tab", a},
          home, new PrintWriter(out, true), new PrintWriter(err, true));
      assertThat(undoA).isEqualTo(1);
      assertThat(err.toString()).contains("Tab " + a + " is in use by process " + ProcessHandle.current().pid())
          .doesNotContain(b);
      assertThat(project.resolve("a.txt")).hasContent("a");

      SessionFile saved = ui.files().load(session);
      assertThat(saved.tabs()).extracting(SessionFile.Tab::tabId).as("the order kept").containsExactly(a, b);
      assertThat(saved.activeTab()).as("the tab the interface shows stays shown").isEqualTo(a);
      assertThat(saved.tabs().get(1).live()).isZero();
      ui.close();
    }
  }
}
