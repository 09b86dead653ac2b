package dev.waymark.core.sandbox;

import java.util.Locale;

/** Whether shell commands run in the sandbox. */
public enum SandboxMode {
  /** In the sandbox where one can start; otherwise as before, said once (the default). */
  AUTO,
  /** In the sandbox, or not at all: never fails open. */
  REQUIRED,
  /** Never in the sandbox, on purpose. */
  OFF;

  /** Parses {@code auto}, {@code required} or {@code off}. */
  public static SandboxMode parse(String text) {
    for (SandboxMode mode : values()) {
      if (mode.name().toLowerCase(Locale.ROOT).equals(text.toLowerCase(Locale.ROOT))) {
        return mode;
      }
    }
    throw new IllegalArgumentException("sandbox mode \"" + text + "\" is not a mode: use auto, required or off.");
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
