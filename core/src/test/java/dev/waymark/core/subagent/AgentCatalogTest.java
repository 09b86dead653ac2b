package dev.waymark.core.subagent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agent files as Claude Code writes them, and what a subagent's tab is given of its parent's. */
class AgentCatalogTest {
  @TempDir Path temp;

  private Path write(Path file, String text) throws Exception {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, text);
  }

  @Test
  void theProjectsAndTheUsersAgentFilesComeBeforeTheBuiltInOnesAndClaudeToolNamesBecomeWaymarks() throws Exception {
    Path project = temp.resolve("project");
    Path config = temp.resolve("config/waymark");
    Path home = temp.resolve("home");
    write(project.resolve(".claude/agents/reviewer.md"), "---\nname: reviewer\ndescription: Reviews a change.\n"
        + "tools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\nYou review code.\n");
    write(project.resolve(".waymark/agents/writer.md"), "---\ndescription: Writes docs.\ntools: [read_file, write_file]\n"
        + "model: gpt-4.1-mini\n---\nYou write docs.\n");
    write(home.resolve(".claude/agents/reviewer.md"), "---\nname: reviewer\ndescription: The user's reviewer.\n---\n");
    write(config.resolve("agents/broken.md"), "no front matter here\n");
    write(config.resolve("agents/explore.md"), "---\nname: explore\ndescription: The user's explorer.\n---\nLook.\n");

    AgentCatalog catalog = AgentCatalog.of(Optional.of(project), config, home);

    assertThat(catalog.agents()).extracting(AgentDefinition::name)
        .containsExactly("writer", "reviewer", "explore", "general");
    AgentDefinition reviewer = catalog.agents().get(1);
    assertThat(reviewer.description()).isEqualTo("Reviews a change.");
    assertThat(reviewer.tools()).containsExactly("read_file", "grep", "list_files", "run_shell");
    assertThat(reviewer.model()).as("a Claude model alias means the parent's model").isEmpty();
    assertThat(reviewer.readOnly()).isTrue();
    assertThat(reviewer.instructions()).isEqualTo("You review code.");
    AgentDefinition writer = catalog.agents().get(0);
    assertThat(writer.model()).contains("gpt-4.1-mini");
    assertThat(writer.readOnly()).isFalse();
    assertThat(catalog.agents().get(2).description()).as("the user's explore over the built-in one")
        .isEqualTo("The user's explorer.");
    assertThat(catalog.refused()).singleElement().satisfies(r -> assertThat(r.why()).contains("no front matter"));
    assertThat(catalog.promptSection()).contains("# Subagents", "- writer: Writes docs.", "- general: ");

    AgentCatalog untrusted = AgentCatalog.of(Optional.empty(), config, home);
    assertThat(untrusted.agents()).extracting(AgentDefinition::name).containsExactly("explore", "reviewer", "general");
  }

  @Test
  void aSubagentGetsItsParentsModeOrPlanModeWhenItOnlyReadsAndNeverTheTaskTool() {
    List<Tool> all = new ArrayList<>(Tools.standard().all());
    all.add(new TaskTool(new Subagents() {
      @Override
      public Outcome run(Request request, Cancellation cancellation) {
        throw new AssertionError("not run");
      }

      @Override
      public List<AgentDefinition> agents() {
        return AgentCatalog.BUILT_IN.agents();
      }
    }));
    Toolset parent = Toolset.of(all);
    SessionSettings yolo = new SessionSettings("m", ApprovalMode.YOLO, true, null);

    assertThat(ChildSetup.settings(yolo, AgentDefinition.EXPLORE).approval()).isEqualTo(ApprovalMode.PLAN);
    assertThat(ChildSetup.settings(yolo.withApproval(ApprovalMode.ASK), AgentDefinition.GENERAL).approval())
        .isEqualTo(ApprovalMode.ASK);
    assertThat(ChildSetup.settings(yolo, AgentDefinition.GENERAL).basePrompt()).contains("# Subagent");
    assertThat(ChildSetup.tools(parent, AgentDefinition.GENERAL).specs()).extracting(ToolSpec::name)
        .contains("write_file", "run_shell").doesNotContain("task");
    assertThat(ChildSetup.tools(parent, AgentDefinition.GENERAL).find("task")).isEmpty();
    assertThat(ChildSetup.tools(parent, AgentDefinition.EXPLORE).specs()).extracting(ToolSpec::name)
        .containsExactlyInAnyOrder("read_file", "list_files", "grep", "run_shell");
  }
}
