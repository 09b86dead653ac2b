package dev.waymark.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The delay a server asks for, in the forms servers send it. */
class RetryAfterTest {
  private static Optional<Duration> of(String name, String value) {
    return HttpTransport.retryAfter(HttpHeaders.of(Map.of(name, List.of(value)), (a, b) -> true));
  }

  @Test
  void secondsMillisecondsAndDates() {
    assertThat(of("Retry-After", "7")).contains(Duration.ofSeconds(7));
    assertThat(of("Retry-After", "1.5")).contains(Duration.ofMillis(1500));
    assertThat(of("retry-after-ms", "250")).contains(Duration.ofMillis(250));
    String inTenSeconds =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(10));
    assertThat(of("Retry-After", inTenSeconds).orElseThrow()).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
  }

  @Test
  void garbageOrNothingMeansNoRequest() {
    assertThat(of("Retry-After", "soon")).isEmpty();
    assertThat(of("X-Other", "3")).isEmpty();
  }
}
