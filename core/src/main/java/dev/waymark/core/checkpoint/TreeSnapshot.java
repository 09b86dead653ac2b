package dev.waymark.core.checkpoint;

import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Everything needed to bring a tab's {@link CheckpointTree} back later or in another process (sessions): every
 * checkpoint, where live, the files and redo stand, and the commits of the named saves.
 *
 * @param redo the checkpoints redo would re-apply, next first
 * @param saves the commit of each named save, by name
 */
public record TreeSnapshot(String tabId, List<Checkpoint> checkpoints, int live, int filesAt, List<Integer> redo,
    Map<String, ObjectId> saves) {
  public TreeSnapshot {
    checkpoints = List.copyOf(checkpoints);
    redo = List.copyOf(redo);
    saves = Map.copyOf(saves);
  }
}
