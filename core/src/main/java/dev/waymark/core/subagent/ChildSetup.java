package dev.waymark.core.subagent;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tool;
import java.util.List;
import java.util.Optional;

/** What a subagent's tab is given from its parent's: never more than the parent may do. */
public final class ChildSetup {
  private ChildSetup() {}

  /** Heads a subagent's system prompt. */
  static final String SUBAGENT_PROMPT = "# Subagent\nYou are a subagent: another agent gave you the task in the user's "
      + "message. Do it, then answer with what you found or did, complete in itself: your last answer is all the other "
      + "agent gets back.";

  /**
   * The parent's settings as they are now (its mode, so never more than it may do; a read-only agent in
   * plan mode, whose shell commands run on the read-only project), with the agent's model and instructions.
   */
  public static SessionSettings settings(SessionSettings parent, AgentDefinition agent) {
    SessionSettings settings = agent.readOnly() ? parent.withApproval(ApprovalMode.PLAN) : parent;
    if (agent.model().isPresent() && !agent.model().get().equals("inherit")) {
      settings = settings.withModel(agent.model().get());
    }
    String prompt = settings.basePrompt() + "\n\n" + SUBAGENT_PROMPT
        + (agent.instructions().isBlank() ? "" : "\n\n" + agent.instructions().strip());
    return new SessionSettings(settings.model(), settings.approval(), settings.interactive(), prompt,
        settings.maxStepsPerTurn(), settings.contextWindow(), settings.compactPercent(), settings.contextWindows());
  }

  private static boolean allowed(AgentDefinition agent, String tool) {
    return !tool.equals(TaskTool.NAME) && agent.allows(tool);
  }

  /** The parent's tools the agent may use: never {@code task} (a subagent starts no subagents). */
  public static Toolset tools(Toolset parent, AgentDefinition agent) {
    return new Toolset() {
      @Override
      public List<ToolSpec> specs() {
        return parent.specs().stream().filter(s -> allowed(agent, s.name())).toList();
      }

      @Override
      public Optional<Tool> find(String name) {
        return allowed(agent, name) ? parent.find(name) : Optional.empty();
      }

      @Override
      public String promptSection() {
        return parent.promptSection();
      }
    };
  }
}
