package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.hook.HookEvent;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings' "hooks" block: read in Claude Code's shape, checked, tagged with its file, and a project's only once trusted. */
class HookSettingsTest {
  @TempDir Path temp;
  Path project;
  final Map<String, String> env = new HashMap<>();
  ShellSandbox noSandbox;

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    noSandbox = new ShellSandbox(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")), Optional.empty(),
        "not here");
  }

  private void write(Path file, String json) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
  }

  private Hooks hooks() {
    return HookFiles.of(env, project, noSandbox, 1 << 20);
  }

  @Test
  void theUsersHooksThenATrustedProjectsAreRunEachTaggedWithItsFile() throws Exception {
    write(Settings.userFile(env), """
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh", "timeout": 5}]}]}}
        """);
    write(Settings.projectFile(project), """
        {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "theirs.sh"}]}]}}
        """);
    assertThat(hooks().commandsFor(HookEvent.PRE_TOOL_USE, Optional.of("run_shell"))).singleElement()
        .satisfies(c -> assertThat(c.source()).isEqualTo("user settings " + Settings.userFile(env)))
        .satisfies(c -> assertThat(c.timeout().toSeconds()).isEqualTo(5));
    assertThat(hooks().commandsFor(HookEvent.PRE_TOOL_USE, Optional.of("write_file"))).as("not trusted yet").isEmpty();
    assertThat(Settings.resolve(env, project).warning()).get().asString()
        .contains("hooks (not run: PreToolUse Write: theirs.sh)");

    Settings.trust(env, project);

    assertThat(hooks().commandsFor(HookEvent.PRE_TOOL_USE, Optional.of("write_file"))).singleElement()
        .satisfies(c -> assertThat(c.source()).isEqualTo("project settings " + Settings.projectFile(project)))
        .satisfies(c -> assertThat(c.timeout().toSeconds()).as("Claude Code's default").isEqualTo(60));
    assertThat(hooks().describe()).anySatisfy(line -> assertThat(line).contains("PreToolUse Bash: mine.sh", "timeout 5 s"));
  }

  @Test
  void fieldsWaymarkDoesNotUseAreIgnoredAndPromptHooksAreNotRun() throws Exception {
    write(Settings.userFile(env), """
        {"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Are the tests green?"},
                                         {"type": "command", "command": "check.sh", "statusMessage": "checking"}]}]}}
        """);
    assertThat(hooks().commandsFor(HookEvent.STOP, Optional.empty())).extracting(c -> c.command()).containsExactly("check.sh");
  }

  @Test
  void anUnknownEventOrAMatcherThatIsNoRegularExpressionIsReportedWithTheFile() throws Exception {
    write(Settings.userFile(env), """
        {"hooks": {"PreToolUsed": [{"hooks": [{"type": "command", "command": "x"}]}]}}
        """);
    assertThatThrownBy(() -> Settings.resolve(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining(Settings.userFile(env).toString()).hasMessageContaining("unknown event \"PreToolUsed\"")
        .hasMessageContaining("PreToolUse, PostToolUse");
    write(Settings.userFile(env), """
        {"hooks": {"PreToolUse": [{"matcher": "Write|(Edit", "hooks": [{"type": "command", "command": "x"}]}]}}
        """);
    assertThatThrownBy(() -> Settings.resolve(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("the matcher \"Write|(Edit\" is not a regular expression");
  }
}
