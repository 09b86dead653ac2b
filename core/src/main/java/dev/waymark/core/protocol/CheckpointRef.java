package dev.waymark.core.protocol;

import java.util.regex.Pattern;

/**
 * A checkpoint named by a user, of this tab or another tab of the session: {@code N} or
 * {@code #N}, {@code live}, or a save's name; {@code TAB:} before it picks the tab, by its id or by
 * its place in the session (1 is the first tab). A number is a checkpoint before it is a save's
 * name, and {@code live} the live checkpoint before a save so named.
 *
 * @param tab the tab's id or place, or empty for the tab the command goes to
 * @param checkpoint the number (without {@code #}), {@code live}, or a save's name
 */
public record CheckpointRef(String tab, String checkpoint) {
  private static final Pattern WORD = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");

  public CheckpointRef {
    tab = tab == null ? "" : tab;
  }

  /** The live checkpoint of the tab the command goes to. */
  public static CheckpointRef live() {
    return new CheckpointRef("", "live");
  }

  public static CheckpointRef of(int number) {
    return new CheckpointRef("", Integer.toString(number));
  }

  /** Parses what a user typed; a bad name throws with a sentence that says what a name looks like. */
  public static CheckpointRef parse(String text) {
    String typed = text == null ? "" : text.strip();
    int colon = typed.lastIndexOf(':');
    String tab = colon < 0 ? "" : typed.substring(0, colon);
    String name = colon < 0 ? typed : typed.substring(colon + 1);
    if (name.startsWith("#")) {
      name = name.substring(1);
    }
    if (colon >= 0 && !WORD.matcher(tab).matches() || !WORD.matcher(name).matches() || name.contains("..")) {
      throw new IllegalArgumentException("Not a checkpoint: \"" + typed + "\" (N, #N, live or a save's name, "
          + "with TAB: before it for another tab: its id or its place, 1 for the first).");
    }
    return new CheckpointRef(tab, name);
  }

  /** Whether the checkpoint is given by its number. */
  public boolean isNumber() {
    return NUMBER.matcher(checkpoint).matches();
  }

  /** As a user would type it: {@code #4}, {@code live}, {@code t1a2b:#4}. */
  @Override
  public String toString() {
    return (tab.isEmpty() ? "" : tab + ":") + (isNumber() ? "#" : "") + checkpoint;
  }
}
