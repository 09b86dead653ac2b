package dev.waymark.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.SavedSessions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Listing the sessions of a project with a thousand of them (what {@code /resume} opens on): each
 * file is read once, and again only when it changed, which is counted, not timed.
 */
class SessionListTest {
  @TempDir Path temp;

  @Test
  void aSecondListReadsOnlyTheFilesThatChangedSinceTheFirst() throws Exception {
    SessionStore sessions = new SessionStore(temp.resolve("sessions"), Clock.systemUTC());
    Instant start = Instant.parse("2026-11-01T10:00:00Z");
    SavedSessions.saveMany(sessions, 1000, start);

    List<SessionStore.Listing> first = sessions.list();
    long afterFirst = sessions.filesParsedForLists();
    List<SessionStore.Listing> second = sessions.list();
    long afterSecond = sessions.filesParsedForLists();
    SavedSessions.save(sessions, "s0007", "renamed", "prompt number 7", start.plusSeconds(999_999));
    Files.delete(sessions.file("s0008"));
    List<SessionStore.Listing> third = sessions.list();

    assertThat(first).hasSize(1000);
    assertThat(first.get(0).title()).isEqualTo("prompt number 999");
    assertThat(afterFirst).isEqualTo(1000);
    assertThat(second).isEqualTo(first);
    assertThat(afterSecond).as("nothing changed: nothing read").isEqualTo(1000);
    assertThat(sessions.filesParsedForLists()).as("the one saved again").isEqualTo(1001);
    assertThat(third).hasSize(999);
    assertThat(third.get(0)).extracting(SessionStore.Listing::id, SessionStore.Listing::title, SessionStore.Listing::prompt)
        .containsExactly("s0007", "renamed", "prompt number 7");
  }
}
