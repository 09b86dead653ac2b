package dev.waymark.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The delay a server asks for, in the forms servers send it. */
class RetryAfterTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private static Optional<Duration> of(String name, String value) {
    return HttpFailures.retryAfter(HttpHeaders.of(Map.of(name, List.of(value)), (a, b) -> true),
        Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @Test
  void secondsMillisecondsAndDates() {
    assertThat(of("Retry-After", "7")).contains(Duration.ofSeconds(7));
    assertThat(of("Retry-After", "1.5")).contains(Duration.ofMillis(1500));
    assertThat(of("retry-after-ms", "250")).contains(Duration.ofMillis(250));
    assertThat(of("Retry-After", "Sun, 01 Mar 2026 12:00:10 GMT")).contains(Duration.ofSeconds(10));
    assertThat(of("Retry-After", "Sun, 01 Mar 2026 11:59:00 GMT")).as("a date past asks for no wait").contains(Duration.ZERO);
  }

  @Test
  void garbageOrNothingMeansNoRequest() {
    assertThat(of("Retry-After", "soon")).isEmpty();
    assertThat(of("X-Other", "3")).isEmpty();
  }
}
