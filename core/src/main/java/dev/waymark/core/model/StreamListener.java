package dev.waymark.core.model;

import java.time.Duration;

/** Receives a model's answer while it streams. Called on the model client's thread, in order. */
public interface StreamListener {
  void textDelta(String text);

  /** Streamed reasoning of a reasoning model, before its answer; shown apart from the answer. */
  default void reasoningDelta(String text) {}

  /** A tool call's name is known (its arguments may still be arriving). */
  default void toolCallStarted(String id, String name) {}

  /**
   * The call failed before any answer and is tried again after {@code delay}: a front end shows
   * it, since the wait can be long (a server's Retry-After).
   */
  default void retrying(Retry retry) {}

  /** One retry: why, how long until it, and which of how many. */
  record Retry(String reason, Duration delay, int attempt, int maxRetries) {
    /** E.g. {@code rate limited, retrying in 12 s (2/3)}; delays round up to whole seconds. */
    public String message() {
      long seconds = Math.max(1, (delay.toMillis() + 999) / 1000);
      return reason + ", retrying in " + seconds + " s (" + attempt + "/" + maxRetries + ")";
    }
  }

  StreamListener IGNORE = text -> {};
}
