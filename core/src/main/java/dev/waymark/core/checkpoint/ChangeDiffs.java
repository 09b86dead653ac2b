package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.FileChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;

/**
 * What one checkpoint changed, as unified diffs, from its immutable {@link Checkpoint} and the
 * store's blobs: for readers off the tab's thread (a bisect names the checkpoint it found), where
 * {@link CheckpointTree#changeDiffs} is for the tab's own.
 */
public final class ChangeDiffs {
  private ChangeDiffs() {}

  /** Reads a blob of the store ({@link ShadowStore#readBlob}). */
  public interface Blobs {
    byte[] read(ObjectId blob) throws IOException;
  }

  public static CheckpointDiff of(Checkpoint checkpoint, Blobs blobs) throws IOException {
    List<CheckpointDiff.FileDiff> diffs = new ArrayList<>();
    for (FileChange change : checkpoint.changes()) {
      byte[] before = change.before().exists() ? blobs.read(change.before().blob()) : null;
      byte[] after = change.after().exists() ? blobs.read(change.after().blob()) : null;
      diffs.add(CheckpointDiffs.unifiedDiff(change.path(), before, change.before().kind(), change.before().mode(), after,
          change.after().kind(), change.after().mode()));
    }
    return new CheckpointDiff(checkpoint.number(), diffs);
  }
}
