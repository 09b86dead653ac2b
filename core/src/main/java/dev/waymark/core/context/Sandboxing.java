package dev.waymark.core.context;

import java.util.Objects;

/**
 * What fences the agent's shell commands, as the model is told: a sentence for the sandbox and
 * one for the network. Passed in by whoever starts the commands, so the prompt says what is true.
 */
public record Sandboxing(String sandbox, String network) {
  /** No sandbox: commands run as the user, with the network open. */
  public static final Sandboxing NONE = new Sandboxing(
      "none: shell commands run directly as the user; only the project's changes are recorded", "not restricted");

  public Sandboxing {
    Objects.requireNonNull(sandbox);
    Objects.requireNonNull(network);
  }
}
