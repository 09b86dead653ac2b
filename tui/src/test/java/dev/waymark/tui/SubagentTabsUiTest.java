package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.WorkspaceTab;
import dev.waymark.tui.terminal.UiInput;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A subagent's tab in the bar: beside its parent, marked as its subagent, with its state, and a tab the user can use. */
class SubagentTabsUiTest {
  @TempDir Path temp;

  @Test
  void aSubagentsTabOpensBesideItsParentMarkedAsItsAndShowsWhenItWaitsForApproval() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 120, 30, ApprovalMode.ASK, "{'responses':[{'text':'Parent here.'}]}")) {
      ui.send("parent prompt");
      ui.waitFor(s -> s.contains("Parent here.") && s.contains("ready · #1"), "the parent's turn");
      ui.ui.openTab(); // a tab of the user's, shown, after the parent
      ui.send("other prompt");
      ui.waitFor("other prompt");
      String parent = ui.workspace.tabs().get(0).tabId();
      ScriptedChatModel.Script script = ScriptedChatModel.parse(("{'responses':[{'toolCalls':[{'name':'write_file',"
          + "'arguments':{'path':'c.txt','content':'C'}}]},{'text':'Child done.'}]}").replace('\'', '"'), "child");

      WorkspaceTab child = ui.workspace.newTab((tree, memory) -> TabSession.of(tree, ui.project,
          new ScriptedChatModel(script), Toolset.of(Tools.standard().all()),
          new SessionSettings("test-model", ApprovalMode.ASK, true, null), memory), parent);
      child.session().submit(new Command.SendPrompt("child task"));

      String bar = ui.waitFor(s -> s.lines().findFirst().orElse("").contains("2 ↳1 child task ?"),
          "the subagent's tab beside its parent, waiting for approval").lines().findFirst().orElseThrow();
      assertThat(bar.indexOf("1 parent prompt")).isLessThan(bar.indexOf("2 ↳1 child task"));
      assertThat(bar.indexOf("2 ↳1 child task")).isLessThan(bar.indexOf("3 other prompt"));
      assertThat(ui.screen()).as("the tab shown stays the user's").contains("› other prompt");

      // closing the parent while its subagent works asks first; no keeps both
      ui.ui.post(new UiInput.Key(new KeyStroke('1', false, true)));
      ui.waitFor("› parent prompt");
      ui.ctrl('w');
      ui.waitFor("Subagents of this tab still work (tab 2). Close it and stop them?");
      ui.type("n");
      ui.waitFor(s -> !s.contains("Subagents of this tab") && s.lines().findFirst().orElse("").contains("1 parent prompt"),
          "the parent kept");

      ui.ui.post(new UiInput.Key(new KeyStroke('2', false, true)));
      ui.waitFor("Allow write_file");
      ui.readIt(); // a person reads the approval before Enter answers it
      ui.key(KeyType.Enter); // approved in the subagent's own tab
      ui.waitFor(s -> s.contains("Child done.") && s.lines().findFirst().orElse("").contains("2 ↳1 child task "),
          "the subagent done");
    }
  }
}
