package dev.waymark.core.checkpoint;

/**
 * A tab that a checkpoint's turn started and owns (a subagent's): its id, the first and last
 * checkpoint the turn made there, and whether it worked in an isolated view. The checkpoint's undo,
 * redo and goto move that tab with it.
 */
public record ChildLink(String tab, int first, int last, boolean isolated) {
  public ChildLink {
    if (tab == null || tab.isBlank() || first < 1 || last < first) {
      throw new IllegalArgumentException("not a child tab's link: " + tab + " #" + first + "..#" + last);
    }
  }
}
