package dev.waymark.core.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** The system prompt of a tab: the base prompt, then the project's {@code AGENTS.md} if there is one. */
final class SystemPrompt {
  static final int MAX_INSTRUCTIONS = 64 * 1024;

  private SystemPrompt() {}

  static String forProject(Path projectRoot, String basePrompt) {
    Path agents = projectRoot.resolve("AGENTS.md");
    if (!Files.isRegularFile(agents, LinkOption.NOFOLLOW_LINKS)) {
      return basePrompt;
    }
    try {
      String text = Files.readString(agents, StandardCharsets.UTF_8);
      if (text.length() > MAX_INSTRUCTIONS) {
        text = text.substring(0, MAX_INSTRUCTIONS) + "\n[AGENTS.md cut at " + MAX_INSTRUCTIONS + " characters]";
      }
      return basePrompt + "\n\n# Project instructions (AGENTS.md)\n\n" + text.strip();
    } catch (IOException | java.io.UncheckedIOException e) {
      return basePrompt;
    }
  }
}
