package dev.waymark.core.agent;

import dev.waymark.core.context.InstructionFiles;
import dev.waymark.core.context.WorkingEnvironment;
import java.nio.file.Path;

/**
 * The system prompt of a tab: the base prompt, where the agent works (directory, OS, date, shell,
 * git, sandbox), the skills the tools offer, then the instruction files at the project's root ({@code AGENTS.md}, {@code CLAUDE.md}).
 */
final class SystemPrompt {
  private SystemPrompt() {}

  static String forProject(Path projectRoot, String basePrompt, WorkingEnvironment environment) {
    return forProject(projectRoot, basePrompt, environment, "");
  }

  /** With {@code toolsSection}, what the tools say of themselves (the skills), after where the agent works. */
  static String forProject(Path projectRoot, String basePrompt, WorkingEnvironment environment, String toolsSection) {
    StringBuilder prompt = new StringBuilder(basePrompt).append("\n\n").append(environment.describe().strip());
    if (!toolsSection.isBlank()) {
      prompt.append("\n\n").append(toolsSection.strip());
    }
    for (InstructionFiles.Instructions file : InstructionFiles.atRoot(projectRoot)) {
      prompt.append("\n\n").append(file.block());
    }
    return prompt.toString();
  }
}
