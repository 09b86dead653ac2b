package dev.waymark.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;

/**
 * Fuzzed session files: whatever bytes a session file holds, reading it either gives a session
 * or a {@link SessionException} with a message, never another exception, and never changes the
 * file.
 */
@Tag("load")
class SessionFileProperties {
  private static final byte[] VALID = validSession();

  private static byte[] validSession() {
    try {
      Path dir = Files.createTempDirectory("waymark-session-fuzz");
      SessionStore store = new SessionStore(dir, Clock.systemUTC());
      SessionFile.Checkpoint start = new SessionFile.Checkpoint(0, -1, "done", Instant.EPOCH, null, null, List.of(), List.of(),
          List.of(), null, null);
      SessionFile.Checkpoint one = new SessionFile.Checkpoint(1, 0, "done", Instant.EPOCH, "0123456789012345678901234567890123456789",
          "refs/tags/waymark/tabc/1", List.of("kept"),
          List.of(new SessionFile.Change("a.txt", new SessionFile.Version("absent", null),
              new SessionFile.Version("regular", "89abcdef0123456789abcdef0123456789abcdef"))),
          List.of(new SessionFile.Message("user", "hello", null, null, null, null),
              new SessionFile.Message("assistant", "", List.of(new SessionFile.ToolCallRecord("c1", "write_file", "{}")), null, null, null),
              new SessionFile.Message("tool", "ok", null, "c1", "write_file", false)),
          "draft", new SessionFile.ToolCallRecord("c2", "run_shell", "{\"command\":\"ls\"}"));
      SessionFile.Tab tab = new SessionFile.Tab("tabc", "title", "openai", "m", "input", 1, 1, List.of(), List.of(start, one),
          Map.of("kept", "0123456789012345678901234567890123456789"));
      store.save(new SessionFile(1, "fuzz", null, "/p", Instant.EPOCH, Instant.EPOCH, "tabc", List.of(tab)));
      return Files.readAllBytes(store.file("fuzz"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Property(tries = 400)
  void anyDamageToASessionFileIsAClearErrorOrAValidSession(@ForAll("damaged") byte[] bytes) throws IOException {
    Path dir = Files.createTempDirectory("waymark-session-fuzz");
    Path file = dir.resolve("x.json");
    Files.write(file, bytes);
    try {
      SessionFile read = new SessionStore(dir, Clock.systemUTC()).read(file);
      assertThat(read.tabs()).isNotNull();
      Path project = Files.createDirectories(dir.resolve("project"));
      try (var store = ShadowStore.open(project, new WaymarkHome(dir.resolve("home")),
          RetentionPolicy.DEFAULT)) {
        for (SessionFile.Tab tab : read.tabs()) {
          store.restoreTab(SessionCodec.snapshot(tab)); // a session that reads also loads
        }
      }
    } catch (SessionException e) {
      assertThat(e.getMessage()).contains(file.toString());
    }
    assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
  }

  @Provide
  Arbitrary<byte[]> damaged() {
    Arbitrary<Integer> position = Arbitraries.integers().between(0, VALID.length - 1);
    Arbitrary<byte[]> truncated = position.map(n -> Arrays.copyOf(VALID, n));
    Arbitrary<byte[]> flipped = Combinators.combine(position, Arbitraries.bytes()).as((n, b) -> {
      byte[] copy = VALID.clone();
      copy[n] = b;
      return copy;
    });
    Arbitrary<byte[]> replaced = Combinators.combine(position, Arbitraries.of("null", "[]", "{}", "\"x\"", "-1", "99", "true", ",", "}"))
        .as((n, text) -> {
          String s = new String(VALID, StandardCharsets.UTF_8);
          int at = Math.min(n, s.length());
          int end = Math.min(s.length(), at + 1 + (n % 7));
          return (s.substring(0, at) + text + s.substring(end)).getBytes(StandardCharsets.UTF_8);
        });
    Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    return Arbitraries.oneOf(truncated, flipped, replaced, noise);
  }
}
