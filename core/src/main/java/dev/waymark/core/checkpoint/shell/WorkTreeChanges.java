package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileChange;
import java.util.List;

/**
 * What a shell command did to the project's files, as {@link WorkTreeSnapshot#recordChanges()}
 * found it: the changes it recorded in the turn (so undo restores them), and the changed paths it
 * could not record, each with the reason, so that the model and the user know what undo will not
 * bring back.
 */
public record WorkTreeChanges(List<FileChange> recorded, List<Skipped> skipped) {
  public WorkTreeChanges {
    recorded = List.copyOf(recorded);
    skipped = List.copyOf(skipped);
  }

  /** A changed path left out of the checkpoint; a directory's path ends with {@code /}. */
  public record Skipped(String path, String reason) {}

  public boolean isEmpty() {
    return recorded.isEmpty() && skipped.isEmpty();
  }
}
