package dev.waymark.tui.command;

import java.util.Locale;

/**
 * One line of the command menu and of the help: a command as typed, with its arguments, and what it
 * does in one line.
 *
 * @param usage the command and its arguments, e.g. {@code /checkpoint undo [N] [--force]}
 * @param description what it does, one line
 */
public record CommandEntry(String usage, String description) {
  public CommandEntry {
    if (usage == null || !usage.startsWith("/") || usage.length() < 2) {
      throw new IllegalArgumentException("a command starts with / and has a name: \"" + usage + "\"");
    }
    description = description == null ? "" : description;
  }

  /**
   * What is typed to run it, without its arguments: the first word, and those after it before the
   * first one in brackets, in capitals or with a {@code |} ({@code /checkpoint undo}, {@code /mode},
   * {@code /GitHub:review <pr>}).
   */
  public String command() {
    StringBuilder typed = new StringBuilder();
    for (String word : usage.split(" ")) {
      boolean argument = word.startsWith("[") || word.startsWith("<") || word.startsWith("-") || word.contains("|")
          || !word.equals(word.toLowerCase(Locale.ROOT));
      if (argument && typed.length() > 0) {
        break;
      }
      typed.append(typed.length() == 0 ? "" : " ").append(word);
    }
    return typed.toString();
  }

  /** True when the command needs or takes more words after {@link #command()}. */
  public boolean takesArguments() {
    return usage.length() > command().length();
  }

  /** True when it cannot run without an argument: one not in brackets follows its name. */
  public boolean needsArguments() {
    String rest = usage.substring(command().length()).strip();
    return !rest.isEmpty() && !rest.startsWith("[");
  }
}
