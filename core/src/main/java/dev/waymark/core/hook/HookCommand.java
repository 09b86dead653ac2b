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

  /**
   * Whose hook it is, by the settings it came from, and what it runs, as the user and the model are told of it:
   * {@code the project's PreToolUse hook "./guard.sh"}.
   */
  public String named(String event) {
    String owner = source.matches("(user|project|local) settings.*") ? "the " + source.substring(0, source.indexOf(' ')) + "'s " : "a ";
    String shown = command.strip().replaceAll("\\s+", " ");
    return owner + event + " hook \"" + (shown.length() <= 80 ? shown : shown.substring(0, 79) + "…") + "\"";
  }
}
