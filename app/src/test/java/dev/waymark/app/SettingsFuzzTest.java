package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.tui.terminal.KeyMap;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Fuzzed settings files: whatever a settings file holds, reading it gives settings or a
 * {@link Settings.BadSettings} naming the file, and key bindings either apply or are refused with
 * a message; never another exception, never a stack trace for the user.
 */
class SettingsFuzzTest {
  private static final String VALID = "{\"provider\": \"ollama\", \"model\": \"m\", \"approval\": \"yolo\","
      + " \"providers\": [{\"id\": \"ollama\", \"type\": \"openai\", \"baseUrl\": \"http://localhost:11434/v1\", \"models\": [\"m\"]}],"
      + " \"keyBindings\": {\"view-back\": [\"alt+left\"], \"new-tab\": [\"ctrl+n\"]},"
      + " \"retention\": {\"keepPerTab\": 10, \"maxAgeDays\": 3}, \"exclusions\": [\"gen/\"]}";

  @Property(tries = 500)
  void anySettingsFileReadsOrIsRefusedWithItsPath(@ForAll("settings") String text) throws Exception {
    Path file = Files.createTempFile("settings", ".json");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    try {
      Settings settings = Settings.read(file);
      try {
        KeyMap.defaults().withOverrides(settings.keyBindings());
      } catch (IllegalArgumentException refused) {
        assertThat(refused.getMessage()).isNotBlank();
      }
      settings.retentionPolicy();
    } catch (Settings.BadSettings e) {
      assertThat(e.getMessage()).startsWith(file.toString());
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Provide
  Arbitrary<String> settings() {
    Arbitrary<Integer> at = Arbitraries.integers().between(0, VALID.length());
    Arbitrary<String> truncated = at.map(n -> VALID.substring(0, n));
    Arbitrary<String> spliced = Combinators.combine(at, Arbitraries.of("null", "[]", "{}", "\"\"", "-1", "0", "1e9", "true",
        ",", "\"ctrl+\"", "[null]", "\"x\":1", "\\u0000")).as((n, piece) -> {
          int end = Math.min(VALID.length(), n + 1 + n % 9);
          return VALID.substring(0, n) + piece + VALID.substring(end);
        });
    Arbitrary<String> noise = Arbitraries.strings().ofMaxLength(120);
    return Arbitraries.oneOf(truncated, spliced, noise);
  }
}
