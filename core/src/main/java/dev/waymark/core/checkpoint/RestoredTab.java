package dev.waymark.core.checkpoint;

import java.util.List;

/**
 * A tab brought back from a snapshot, and what could not be.
 *
 * @param recovered checkpoints found under the tab's tags that the snapshot does not know
 *     (Waymark stopped after recording them, before saving the session): their files are back in
 *     the tree, their conversation is not
 * @param shellRecovered what was recorded of shell commands that were running when Waymark stopped
 */
public record RestoredTab(CheckpointTree tree, List<String> recreatedTags, List<Integer> lostCheckpoints,
    List<Integer> recovered, List<String> shellRecovered) {
  /** Whether the tab was moved to where its last restore left the files: that restore ended after the session was saved. */
  public boolean reconciled() {
    return tree.reconciled();
  }
}
