package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.McpTool;
import dev.waymark.core.tool.ToolResult;
import dev.waymark.core.tool.ToolSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MCP tool calls through the approval gate: asked like shell commands unless the settings pre-allow them. */
class McpApprovalTest {
  @TempDir Path temp;
  TestTabs tabs;
  final List<String> calls = new CopyOnWriteArrayList<>();

  @BeforeEach
  void open() {
    tabs = new TestTabs(temp);
  }

  @AfterEach
  void close() {
    tabs.close();
  }

  private McpTool tool(String name, boolean preApproved) {
    return tool(name, preApproved, false);
  }

  private McpTool tool(String name, boolean preApproved, boolean readOnly) {
    McpTool.Server server = new McpTool.Server() {
      @Override
      public String name() {
        return "srv";
      }

      @Override
      public ToolResult call(String tool, JsonNode arguments, Cancellation cancellation) {
        calls.add(tool);
        return ToolResult.ok("ran " + tool);
      }
    };
    return new McpTool(server, name, null, null, preApproved, ToolSettings.DEFAULTS).readOnly(readOnly);
  }

  @Test
  void theRuleAlwaysOffersForARenamedToolNamesTheServersOwnTool() throws Exception {
    TabSession session = tabs.open("tab1", TestTabs.scripted("{'responses': []}"),
        Toolset.of(List.of(tool("list_issues", false), tool("list.issues", false).named("srv__list_issues_2"))),
        new SessionSettings("m", ApprovalMode.ASK, true, null));
    assertThat(session.ruleFor(new ToolCallView("c1", "srv__list_issues_2", "{}")).toString())
        .isEqualTo("mcp__srv__list.issues");
    assertThat(session.ruleFor(new ToolCallView("c2", "srv__list_issues", "{}")).toString())
        .isEqualTo("mcp__srv__list_issues");
  }

  @Test
  void withNobodyToAskAPreAllowedToolRunsAndAnotherIsDeniedNamingTheMode() throws Exception {
    ScriptedChatModel model = TestTabs.scripted("{'responses': ["
        + "{'toolCalls': [{'name': 'srv__allowed', 'arguments': {}}, {'name': 'srv__other', 'arguments': {}}]},"
        + "{'text': 'ok'}]}");
    TabSession session = tabs.open("tab1", model, Toolset.of(List.of(tool("allowed", true), tool("other", false))),
        new SessionSettings("m", ApprovalMode.AUTO_EDIT, false, null));
    List<Event> seen = TestTabs.untilTurnFinished(session, () -> session.submit(new Command.SendPrompt("go")), e -> { });
    assertThat(calls).containsExactly("allowed");
    assertThat(seen).filteredOn(e -> e instanceof Event.Warning).singleElement().asString()
        .contains("Denied srv__other", "Use --approval yolo");
  }

  @Test
  void inPlanModeAToolThatDeclaresItselfReadOnlyIsAskedAboutAndAnotherIsRefused() throws Exception {
    ScriptedChatModel model = TestTabs.scripted("{'responses': ["
        + "{'toolCalls': [{'name': 'srv__search', 'arguments': {}}, {'name': 'srv__create', 'arguments': {}}]},"
        + "{'text': 'the plan'}]}");
    TabSession session = tabs.open("tab1", model, Toolset.of(List.of(tool("search", false, true), tool("create", false, false))),
        new SessionSettings("m", ApprovalMode.PLAN, true, null));
    List<Event> seen = TestTabs.untilTurnFinished(session, () -> session.submit(new Command.SendPrompt("plan")), e -> {
      if (e instanceof Event.ToolCallProposed proposed && proposed.needsApproval()) {
        session.submit(new Command.Approve(proposed.call().id(), false));
      }
    });
    assertThat(calls).containsExactly("search");
    assertThat(seen).filteredOn(e -> e instanceof Event.ToolCallProposed).extracting(e -> ((Event.ToolCallProposed) e).needsApproval())
        .containsExactly(true, false);
    assertThat(seen).filteredOn(e -> e instanceof Event.ToolCallFinished).extracting(e -> ((Event.ToolCallFinished) e).result())
        .last().asString().contains("Not run", "plan mode");
  }
}
