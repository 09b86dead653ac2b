package dev.waymark.tui.command;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /bisect [--good A] [--bad B] CMD}: the options first, then the command as typed (its
 * spaces and quotes kept, for {@code /bin/sh -c}).
 */
record BisectLine(String command, OptionalInt good, OptionalInt bad) {
  private static final Pattern LINE = Pattern.compile("/bisect((?:\\s+--(?:good|bad)\\s+\\S+)*)(?:\\s+(.*))?",
      Pattern.DOTALL | Pattern.CASE_INSENSITIVE);
  private static final Pattern OPTION = Pattern.compile("--(good|bad)\\s+(\\S+)");
  static final String USAGE = "Usage: /bisect [--good A] [--bad B] CMD: the first checkpoint from A (default #0) to B "
      + "(default live) where CMD fails.";

  /** The line's parts; an {@link IllegalArgumentException} says what is wrong with it. */
  static BisectLine parse(String text) {
    Matcher line = LINE.matcher(text.strip());
    if (!line.matches() || line.group(2) == null || line.group(2).isBlank()) {
      throw new IllegalArgumentException(USAGE);
    }
    OptionalInt good = OptionalInt.empty();
    OptionalInt bad = OptionalInt.empty();
    Matcher option = OPTION.matcher(line.group(1));
    while (option.find()) {
      String digits = option.group(2).startsWith("#") ? option.group(2).substring(1) : option.group(2);
      if (!digits.matches("\\d{1,9}")) {
        throw new IllegalArgumentException("Not a checkpoint number for --" + option.group(1) + ": \"" + option.group(2)
            + "\".");
      }
      if (option.group(1).equals("good")) {
        good = OptionalInt.of(Integer.parseInt(digits));
      } else {
        bad = OptionalInt.of(Integer.parseInt(digits));
      }
    }
    return new BisectLine(line.group(2).strip(), good, bad);
  }
}
