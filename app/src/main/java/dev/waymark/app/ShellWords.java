package dev.waymark.app;

/** Words in a command Waymark prints for the user to paste into a POSIX shell. */
final class ShellWords {
  private ShellWords() {}

  /**
   * The word as the shell would pass it back: bare when plain, in double quotes when only spaces
   * or an apostrophe need it (as a user types "say hello"), else in single quotes.
   */
  static String quoted(String word) {
    if (!word.isEmpty() && word.matches("[\\w@%+=:,./-]+")) {
      return word;
    }
    if (!word.matches("(?s).*[\"$`\\\\!].*")) {
      return "\"" + word + "\"";
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
