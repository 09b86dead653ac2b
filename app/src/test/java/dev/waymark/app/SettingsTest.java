package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Settings files, then the environment, then flags, each overriding the one before. */
class SettingsTest {
  @TempDir Path temp;
  Path project;
  Map<String, String> env = new HashMap<>();
  final CommandLine cli = new CommandLine(new Main(new dev.waymark.core.WaymarkHome(Path.of("/nonexistent"))));

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
  }

  private void user(String json) throws Exception {
    Path file = Settings.userFile(env);
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
  }

  private void projectSettings(String json) throws Exception {
    Path file = Settings.projectFile(project);
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
  }

  private Providers.Choice choose(ModelOptions flags) throws Exception {
    return Providers.choose(flags, Settings.load(env, project), env, cli);
  }

  @Test
  void theProjectOverridesTheUserTheEnvironmentOverridesBothAndFlagsOverrideAll() throws Exception {
    user("{\"provider\": \"ollama\", \"approval\": \"auto-edit\", \"providers\": [{\"id\": \"ollama\", \"type\": \"openai\","
        + " \"baseUrl\": \"http://localhost:11434/v1\", \"models\": [\"qwen2.5-coder\"]}],"
        + " \"keyBindings\": {\"view-back\": [\"alt+b\"]}, \"retention\": {\"keepPerTab\": 50, \"maxAgeDays\": 7}}");
    ModelOptions flags = new ModelOptions();

    Providers.Choice fromUser = choose(flags);
    assertThat(fromUser.provider()).isEqualTo("ollama");
    assertThat(fromUser.model()).isEqualTo("qwen2.5-coder");
    assertThat(fromUser.baseUrl()).hasToString("http://localhost:11434/v1");
    assertThat(flags.approvalMode(Settings.load(env, project), env, cli)).isEqualTo(ApprovalMode.AUTO_EDIT);

    projectSettings("{\"model\": \"llama3\", \"approval\": \"yolo\", \"keyBindings\": {\"new-tab\": [\"ctrl+n\"]},"
        + " \"retention\": {\"keepPerTab\": 20}, \"exclusions\": [\"generated/\"]}");
    Settings merged = Settings.load(env, project);
    assertThat(choose(flags).model()).isEqualTo("llama3");
    assertThat(flags.approvalMode(merged, env, cli)).isEqualTo(ApprovalMode.YOLO);
    assertThat(merged.keyBindings()).containsEntry("view-back", List.of("alt+b")).containsEntry("new-tab", List.of("ctrl+n"));
    assertThat(merged.retentionPolicy().keepPerTab()).isEqualTo(20);
    assertThat(merged.retentionPolicy().maxAge()).isEqualTo(Duration.ofDays(7));
    assertThat(merged.exclusions()).containsExactly("generated/");

    env.put("WAYMARK_MODEL", "from-env");
    env.put("WAYMARK_APPROVAL", "ask");
    assertThat(choose(flags).model()).isEqualTo("from-env");
    assertThat(flags.approvalMode(merged, env, cli)).isEqualTo(ApprovalMode.ASK);

    flags.model = "from-flag";
    flags.approval = "auto-edit";
    flags.baseUrl = "http://127.0.0.1:9/v1";
    Providers.Choice fromFlags = choose(flags);
    assertThat(fromFlags.model()).isEqualTo("from-flag");
    assertThat(fromFlags.baseUrl()).hasToString("http://127.0.0.1:9/v1");
    assertThat(flags.approvalMode(merged, env, cli)).isEqualTo(ApprovalMode.AUTO_EDIT);
  }

  @Test
  void theBuiltInServersFollowTheirEnvironmentVariables() throws Exception {
    user("{\"providers\": [{\"id\": \"openai\", \"type\": \"openai\", \"baseUrl\": \"http://settings.example/v1\"}]}");
    env.put("OPENAI_API_KEY", "k");
    assertThat(choose(new ModelOptions()).baseUrl()).hasToString("http://settings.example/v1");
    env.put("OPENAI_BASE_URL", "http://env.example/v1");
    assertThat(choose(new ModelOptions()).baseUrl()).hasToString("http://env.example/v1");
  }

  @Test
  void keysComeFromTheNamedVariableOrAPrivateFile() throws Exception {
    Path keyFile = temp.resolve("key.txt");
    Files.writeString(keyFile, "sk-from-file\n");
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    user("{\"provider\": \"work\", \"providers\": [{\"id\": \"work\", \"type\": \"anthropic\", \"apiKeyEnv\": \"WORK_KEY\","
        + " \"apiKeyFile\": \"" + keyFile + "\"}]}");
    assertThat(choose(new ModelOptions()).apiKey()).isEqualTo("sk-from-file");
    env.put("WORK_KEY", "sk-from-env");
    assertThat(choose(new ModelOptions()).apiKey()).isEqualTo("sk-from-env");

    env.remove("WORK_KEY");
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> choose(new ModelOptions())).hasMessageContaining("chmod 600");
  }

  @Test
  void aBadFileIsReportedWithItsPathLineAndColumn() throws Exception {
    user("{\n  \"model\": \"x\",\n  \"approval\": ,\n}");
    assertThatThrownBy(() -> Settings.load(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageStartingWith(Settings.userFile(env) + ":3:");
    user("{\"modle\": \"x\"}");
    assertThatThrownBy(() -> Settings.load(env, project)).hasMessageContaining("unknown setting \"modle\"")
        .hasMessageContaining("model");
    user("{\"providers\": [{\"id\": \"x\", \"type\": \"gemini\"}]}");
    assertThatThrownBy(() -> Settings.load(env, project)).hasMessageContaining("openai, anthropic or scripted");
  }

  @Test
  void anUnknownProviderNamesTheKnownOnes() throws Exception {
    user("{\"providers\": [{\"id\": \"ollama\", \"type\": \"openai\", \"baseUrl\": \"http://localhost:11434/v1\"}]}");
    ModelOptions flags = new ModelOptions();
    flags.provider = "nope";
    assertThatThrownBy(() -> choose(flags)).hasMessageContaining("Unknown provider \"nope\"").hasMessageContaining("ollama");
  }

  @Test
  void withNothingConfiguredAFirstRunIsDetected() throws Exception {
    assertThat(Providers.nothingConfigured(new ModelOptions(), Settings.load(env, project), env)).isTrue();
    user("{\"provider\": \"ollama\", \"providers\": [{\"id\": \"ollama\", \"type\": \"openai\", \"baseUrl\": \"http://localhost:11434/v1\"}]}");
    assertThat(Providers.nothingConfigured(new ModelOptions(), Settings.load(env, project), env)).isFalse();
  }
}
