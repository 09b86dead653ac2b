package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The arguments of a Waymark started again in a UTF-8 locale are the ones typed, not the JVM's ASCII reading of them. */
class Utf8LocaleTest {
  @Test
  void theLastArgumentsOfACommandLineComeBackAsTyped() {
    byte[] cmdline = "java\0-Xmx1g\0-jar\0waymark.jar\0exec\0-C\0/tmp/projé ü\0résumé\0".getBytes(StandardCharsets.UTF_8);
    String encoded = Utf8Locale.lastArguments(cmdline, 4).orElseThrow();
    String[] asciiReading = {"exec", "-C", "/tmp/proj?? ??", "r??sum??"};

    assertThat(Utf8Locale.arguments(asciiReading, "1", encoded)).containsExactly("exec", "-C", "/tmp/projé ü", "résumé");
  }

  @Test
  void withoutTheMarkOrWithAnotherCountTheArgumentsAreLeftAlone() {
    String encoded = Utf8Locale.lastArguments("java\0a\0b\0".getBytes(StandardCharsets.UTF_8), 2).orElseThrow();
    String[] args = {"x"};
    assertThat(Utf8Locale.arguments(args, null, encoded)).containsExactly("x");
    assertThat(Utf8Locale.arguments(args, "1", encoded)).as("not this process's arguments").containsExactly("x");
    assertThat(Utf8Locale.arguments(new String[0], "1", "")).isEmpty();
    assertThat(Utf8Locale.lastArguments("java\0".getBytes(StandardCharsets.UTF_8), 3)).isEmpty();
  }
}
