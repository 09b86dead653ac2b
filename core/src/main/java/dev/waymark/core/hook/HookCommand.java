package dev.waymark.core.hook;

import java.time.Duration;
import java.util.Objects;

/**
 * One configured hook: a shell command line run with {@code bash -c}.
 *
 * @param timeout how long it may run before it and its children are killed
 * @param source where it was configured (the settings file), which {@code /hooks} and warnings name
 */
public record HookCommand(String command, Duration timeout, String source) {
  /** Claude Code's default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  public HookCommand {
    Objects.requireNonNull(command);
    timeout = timeout == null || timeout.isZero() || timeout.isNegative() ? DEFAULT_TIMEOUT : timeout;
    source = source == null ? "" : source;
  }
}
