package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import java.util.regex.Pattern;

/**
 * How the shadow repository's tags are laid out: each tab's under {@code refs/tags/waymark/<tab>/},
 * its checkpoints by number, its saves under {@code saved/}, rescued versions under
 * {@code rescued/}. Kept apart from the store so that the writer, the loader and the copies name
 * the layout without naming each other.
 */
public final class TagNames {
  /** Where every tab's tags are. */
  static final String ROOT = "refs/tags/waymark/";

  private static final Pattern SAVE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Pattern TAB_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private TagNames() {}

  /** Whether {@code tabId} can be a tab's id: one component of a ref name, so its tags stay under its own prefix. */
  public static boolean isTabId(String tabId) {
    return tabId != null && TAB_ID.matcher(tabId).matches();
  }

  /**
   * Refuses what cannot be a save's name: one component of a git ref name ({@code git
   * check-ref-format}), letters, digits, '.', '-' and '_', starting with a letter or digit, with
   * no "..", and not ending in '.' or ".lock".
   */
  public static void checkSaveName(String name) {
    String why = name == null || !SAVE_NAME.matcher(name).matches()
        ? "letters, digits, '.', '-' and '_', starting with a letter or digit, up to 64"
        : name.contains("..") ? "no \"..\" in it"
        : name.endsWith(".") ? "it may not end with '.'"
        : name.endsWith(".lock") ? "it may not end with \".lock\""
        : null;
    if (why != null) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Not a valid save name: \"" + name + "\" (" + why + ").");
    }
  }

  /** Where the tags of tab {@code tabId} are, ending in a slash. */
  public static String tabPrefix(String tabId) {
    return ROOT + tabId + "/";
  }
}
