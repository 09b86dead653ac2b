package dev.waymark.core.model;

import java.time.Duration;
import java.util.Objects;

/**
 * Timeouts and retry policy of the HTTP model clients. One value object so that tests can make
 * every wait short and the app can expose them as settings without touching the clients.
 *
 * @param connectTimeout how long opening a connection may take
 * @param responseTimeout how long to wait for the response headers (a local model may first load)
 * @param idleTimeout how long a started stream may stay silent before it counts as broken
 * @param maxRetries retries after a 429, a 5xx or a connection failure before any token (0: none)
 * @param backoffBase the first retry's delay; each further retry doubles it
 * @param maxRetryDelay cap on any single delay, including one a server asks for in Retry-After
 * @param maxAnswerBytes bytes of one answer's body read at most; past them the call fails instead
 *     of filling memory
 */
public record HttpOptions(
    Duration connectTimeout,
    Duration responseTimeout,
    Duration idleTimeout,
    int maxRetries,
    Duration backoffBase,
    Duration maxRetryDelay,
    long maxAnswerBytes) {

  public HttpOptions {
    Objects.requireNonNull(connectTimeout);
    Objects.requireNonNull(responseTimeout);
    Objects.requireNonNull(idleTimeout);
    Objects.requireNonNull(backoffBase);
    Objects.requireNonNull(maxRetryDelay);
    if (maxAnswerBytes < 1) {
      throw new IllegalArgumentException("maxAnswerBytes < 1");
    }
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries < 0");
    }
  }

  /** 10 s to connect, 10 min to the headers, 5 min of silence, 3 retries from 500 ms, capped at 60 s; 32 MiB answers. */
  public static HttpOptions defaults() {
    return new HttpOptions(
        Duration.ofSeconds(10),
        Duration.ofMinutes(10),
        Duration.ofMinutes(5),
        3,
        Duration.ofMillis(500),
        Duration.ofSeconds(60),
        32L << 20);
  }

  public HttpOptions withConnectTimeout(Duration d) {
    return new HttpOptions(d, responseTimeout, idleTimeout, maxRetries, backoffBase, maxRetryDelay, maxAnswerBytes);
  }

  public HttpOptions withResponseTimeout(Duration d) {
    return new HttpOptions(connectTimeout, d, idleTimeout, maxRetries, backoffBase, maxRetryDelay, maxAnswerBytes);
  }

  public HttpOptions withIdleTimeout(Duration d) {
    return new HttpOptions(connectTimeout, responseTimeout, d, maxRetries, backoffBase, maxRetryDelay, maxAnswerBytes);
  }

  public HttpOptions withMaxRetries(int n) {
    return new HttpOptions(connectTimeout, responseTimeout, idleTimeout, n, backoffBase, maxRetryDelay, maxAnswerBytes);
  }

  public HttpOptions withBackoffBase(Duration d) {
    return new HttpOptions(connectTimeout, responseTimeout, idleTimeout, maxRetries, d, maxRetryDelay, maxAnswerBytes);
  }

  public HttpOptions withMaxRetryDelay(Duration d) {
    return new HttpOptions(connectTimeout, responseTimeout, idleTimeout, maxRetries, backoffBase, d, maxAnswerBytes);
  }

  public HttpOptions withMaxAnswerBytes(long bytes) {
    return new HttpOptions(connectTimeout, responseTimeout, idleTimeout, maxRetries, backoffBase, maxRetryDelay, bytes);
  }
}
