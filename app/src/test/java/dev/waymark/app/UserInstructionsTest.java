package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The user's own instruction files reach every tab's system prompt, ahead of the project's. */
class UserInstructionsTest {
  @TempDir Path temp;

  @Test
  void theUsersAgentsFileBesideTheSettingsAndClaudeCodesFileFollowTheBasePrompt() throws Exception {
    Path home = Files.createDirectories(temp.resolve("home"));
    Files.createDirectories(home.resolve(".config/waymark"));
    Files.writeString(home.resolve(".config/waymark/AGENTS.md"), "Use British English.");
    Files.createDirectories(home.resolve(".claude"));
    Files.writeString(home.resolve(".claude/CLAUDE.md"), "Never push.");
    Path project = Files.createDirectories(temp.resolve("project"));
    Map<String, String> env = Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", home.resolve(".config").toString());

    SessionSettings session = Settings.load(env, project).session("m", ApprovalMode.ASK, false, env);

    assertThat(session.basePrompt()).startsWith(SessionSettings.DEFAULT_PROMPT + "\n\n# The user's own instructions "
        + "(~/.config/waymark/AGENTS.md)").contains("Use British English.").endsWith("Never push.");
  }

  @Test
  void withoutUserFilesTheBasePromptIsTheDefault() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Map<String, String> env = Map.of("HOME", temp.toString(), "XDG_CONFIG_HOME", temp.resolve("config").toString());

    assertThat(Settings.load(env, project).session("m", ApprovalMode.ASK, false, env).basePrompt())
        .isEqualTo(SessionSettings.DEFAULT_PROMPT);
  }
}
