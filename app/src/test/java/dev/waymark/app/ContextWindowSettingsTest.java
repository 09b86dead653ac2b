package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The context window of the run's model and the automatic compaction threshold, from settings and the known models. */
class ContextWindowSettingsTest {
  @TempDir Path temp;

  private Settings load(String userJson, String projectJson) throws Exception {
    Path config = Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(config.resolve("settings.json"), userJson);
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.deleteIfExists(project.resolve(".waymark/settings.json"));
    if (projectJson != null) {
      Files.createDirectories(project.resolve(".waymark"));
      Files.writeString(project.resolve(".waymark/settings.json"), projectJson);
    }
    return Settings.load(Map.of("XDG_CONFIG_HOME", temp.resolve("config").toString()), project);
  }

  @Test
  void knownModelsHaveTheirWindowASettingGivesOrOverridesOneAndThePercentDefaultsTo85() throws Exception {
    Settings settings = load("{\"contextWindows\": {\"my-local\": 32768, \"gpt-4o\": 64000}}",
        "{\"autoCompactPercent\": 70, \"contextWindows\": {\"other\": 8192}}");

    var session = settings.session("my-local", ApprovalMode.ASK, false);
    assertThat(session.contextWindow()).isEqualTo(32768);
    assertThat(session.compactPercent()).isEqualTo(70);
    assertThat(settings.contextWindow("gpt-4o")).isEqualTo(64000);
    assertThat(settings.contextWindow("other")).isEqualTo(8192);
    assertThat(settings.contextWindow("claude-sonnet-4-5")).isEqualTo(200_000);
    assertThat(settings.contextWindow("gpt-4o-mini")).isEqualTo(128_000);
    assertThat(settings.contextWindow("anthropic/claude-3.5-haiku")).isEqualTo(200_000);
    assertThat(settings.contextWindow("something-unknown")).isZero();
    assertThat(load("{}", null).compactPercent()).isEqualTo(85);
  }

  @Test
  void aModelChosenWithSlashModelHasTheWindowTheSettingsGiveIt() throws Exception {
    Settings settings = load("{\"contextWindows\": {\"my-local\": 32768, \"gpt-4o\": 64000}}", null);

    var session = settings.session("claude-sonnet-4-5", ApprovalMode.ASK, false);
    assertThat(session.withModel("my-local").contextWindow()).isEqualTo(32768);
    assertThat(session.withModel("gpt-4o").contextWindow()).as("the setting wins over the known window").isEqualTo(64000);
    assertThat(session.withModel("gpt-4o-mini").contextWindow()).isEqualTo(128_000);
    assertThat(session.withModel("something-unknown").contextWindow()).isZero();
    assertThat(session.withModel("my-local").withModel("claude-sonnet-4-5").contextWindow()).isEqualTo(200_000);
  }

  @Test
  void aBadWindowOrPercentIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> load("{\"autoCompactPercent\": 120}", null)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("autoCompactPercent must be from 0 (never) to 100");
    assertThatThrownBy(() -> load("{\"contextWindows\": {\"tiny\": 12}}", null)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("the window of \"tiny\" must be a number of tokens, at least 1024");
  }
}
