package dev.waymark.core.checkpoint;


/**
 * How the shadow repository's tags are laid out: each tab's under {@code refs/tags/waymark/<tab>/},
 * its checkpoints by number, its saves under {@code saved/}, rescued versions under
 * {@code rescued/}. Kept apart from the store so that the writer, the loader and the copies name
 * the layout without naming each other.
 */
public final class TagNames {
  /** Where every tab's tags are. */
  static final String ROOT = "refs/tags/waymark/";

  private TagNames() {}

  /** Where the tags of tab {@code tabId} are, ending in a slash. */
  public static String tabPrefix(String tabId) {
    return ROOT + tabId + "/";
  }
}
