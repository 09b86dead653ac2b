package dev.waymark.core.subagent;

import java.util.List;
import java.util.Optional;

/**
 * An agent a subagent may be, as Claude Code defines one: its name, what it is for (the parent's model
 * chooses by it), the tools it may use (empty: every tool the parent has but {@code task}), the model it
 * runs on (empty: the parent's), the instructions its system prompt gets, and whether it only reads (its
 * shell commands then run sandboxed on the read-only project, as in plan mode).
 */
public record AgentDefinition(String name, String description, List<String> tools, Optional<String> model,
    String instructions, boolean readOnly) {
  public AgentDefinition {
    tools = List.copyOf(tools);
    instructions = instructions == null ? "" : instructions;
  }

  /** The tools an agent that only reads is given. */
  public static final List<String> READING_TOOLS = List.of("read_file", "list_files", "grep", "run_shell");

  /** Every tool of the parent. */
  public static final AgentDefinition GENERAL = new AgentDefinition("general",
      "General-purpose agent for a self-contained task: researches, edits files and runs commands.", List.of(),
      Optional.empty(), "", false);

  /** Reads and searches, changes nothing. */
  public static final AgentDefinition EXPLORE = new AgentDefinition("explore",
      "Read-only agent to explore the code base: finds files, reads them, searches and runs read-only commands; "
          + "changes nothing.", READING_TOOLS, Optional.empty(),
      "You explore the project and report what you found; you change nothing.", true);

  /** Whether this agent's definition lets it use the tool {@code name} (none starts subagents: {@code ChildSetup}). */
  public boolean allows(String name) {
    return tools.isEmpty() || tools.contains(name);
  }
}
