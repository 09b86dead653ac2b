package dev.waymark.core.checkpoint;

import java.util.List;

/**
 * What a land, a discard, or an undo or redo of a land did to an isolated tab's view, beside what
 * it did to the project ({@link RestoreResult}): values a sentence is written from.
 *
 * @param kind what was done
 * @param checkpoint the land's or discard's checkpoint
 * @param viewFiles how many paths the view holds after it (undo of a land), or held before (land, discard)
 * @param setAside the paths a land kept as the project has them, the tab's versions under the rescue tag
 * @param isolated whether the tab is isolated after it
 */
public record ViewAct(Kind kind, int checkpoint, int viewFiles, List<String> setAside, boolean isolated) {
  public ViewAct {
    setAside = List.copyOf(setAside);
  }

  public enum Kind {
    /** The view landed on the project. */
    LANDED,
    /** The view was emptied; the project did not change. */
    DISCARDED,
    /** A land was undone: the project as before it, the tab isolated with its view as it was. */
    LAND_UNDONE,
    /** An undone land was redone: landed again. */
    LANDED_AGAIN
  }
}
