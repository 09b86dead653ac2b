package dev.waymark.core.context;

import java.util.Optional;

/**
 * A prompt the user typed as a command ({@code /review src/Foo.java}) that the model gets
 * expanded: the message sent opens with {@code [waymark: LABEL]} and a line break, then the
 * expanded text, so the model knows which command it runs (as Claude Code names it) and the
 * chat, {@code /rewind}, undo's draft and the session's title show it as typed, also after a
 * session is reopened. Restores and reverts label their messages the same way.
 */
public final class TypedPrompt {
  /** What opens a labelled message; the label ends at the first {@code "]\n"}. */
  public static final String LABEL = "[waymark: ";

  private TypedPrompt() {}

  /** The message to send for {@code text} typed as {@code typed}; {@code text} itself when nothing else was typed. */
  public static String sent(String text, String typed) {
    if (typed == null || typed.isBlank() || typed.strip().equals(text.strip())) {
      return text;
    }
    return LABEL + typed.strip().replace('\n', ' ') + "]\n" + text; // one line: the label ends at the first "]\n"
  }

  /** The label {@code message} opens with, if any. */
  public static Optional<String> label(String message) {
    int end = message.indexOf("]\n");
    return message.startsWith(LABEL) && end >= LABEL.length() ? Optional.of(message.substring(LABEL.length(), end))
        : Optional.empty();
  }

  /** What the user typed of {@code message}: its label, else the message without what its @-mentions attached. */
  public static String shown(String message) {
    return label(message).orElseGet(() -> Mentions.typed(message));
  }

  /** Whether a label is a command the user typed ({@code /name ...}), not Waymark's own words for a restore or revert. */
  public static boolean isCommand(String label) {
    return label.startsWith("/");
  }
}
