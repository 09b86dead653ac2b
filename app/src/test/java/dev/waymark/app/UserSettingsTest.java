package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UserSettingsTest {
  @TempDir Path temp;

  @Test
  void theFileLivesUnderXdgConfigHome() {
    assertThat(UserSettings.defaultFile(Map.of("XDG_CONFIG_HOME", "/cfg"))).isEqualTo(Path.of("/cfg/waymark/settings.json"));
    assertThat(UserSettings.defaultFile(Map.of()).toString()).endsWith("/.config/waymark/settings.json");
  }

  @Test
  void aMissingFileMeansNoSettings() throws Exception {
    assertThat(UserSettings.read(temp.resolve("none.json"))).isEqualTo(UserSettings.NONE);
  }

  @Test
  void keyBindingsReplaceOrRemoveKeys() throws Exception {
    Path file = temp.resolve("settings.json");
    Files.writeString(file, "{\"keyBindings\": {\"view-back\": [\"alt+b\"], \"view-forward\": [], \"new-tab\": \"ctrl+n\"}}");
    assertThat(UserSettings.read(file).keyBindings()).containsExactly(
        Map.entry("view-back", List.of("alt+b")), Map.entry("view-forward", List.of()), Map.entry("new-tab", List.of("ctrl+n")));
  }

  @Test
  void badJsonIsReportedWithPathLineAndColumn() throws Exception {
    Path file = temp.resolve("settings.json");
    Files.writeString(file, "{\n  \"keyBindings\": {\n    \"view-back\": [\"alt+b\",]\n  }\n}");
    assertThatThrownBy(() -> UserSettings.read(file)).isInstanceOf(UserSettings.BadSettings.class)
        .hasMessageStartingWith(file + ":3:").hasMessageContaining("not valid JSON");
  }

  @Test
  void aWrongShapeIsNamed() throws Exception {
    Path file = temp.resolve("settings.json");
    Files.writeString(file, "{\"keyBindings\": {\"view-back\": 3}}");
    assertThatThrownBy(() -> UserSettings.read(file)).hasMessageContaining("keyBindings.view-back");
    Files.writeString(file, "[1]");
    assertThatThrownBy(() -> UserSettings.read(file)).hasMessageContaining("must hold a JSON object");
  }
}
