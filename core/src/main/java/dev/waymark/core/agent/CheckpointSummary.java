package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointStatus;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * One line of a checkpoint list: what a user needs to pick a checkpoint.
 *
 * @param prompt the prompt that opened it (empty for {@code #0})
 * @param added lines its own changes added, over all files
 * @param onLivePath false for a checkpoint that was undone or left by a branch
 */
public record CheckpointSummary(
    int number,
    int parent,
    CheckpointStatus status,
    Instant created,
    String prompt,
    int filesChanged,
    int added,
    int removed,
    boolean onLivePath,
    Optional<String> tag,
    Set<String> savedNames) {

  public CheckpointSummary {
    savedNames = Set.copyOf(savedNames);
  }

  /** One line per checkpoint of {@code tree}, {@code #0} first; {@code prompts} gives the prompt that opened each. */
  static java.util.List<CheckpointSummary> of(dev.waymark.core.checkpoint.CheckpointTree tree,
      java.util.function.IntFunction<String> prompts) {
    Set<Integer> onPath = Set.copyOf(tree.livePath());
    java.util.List<CheckpointSummary> all = new java.util.ArrayList<>();
    for (dev.waymark.core.checkpoint.Checkpoint c : tree.checkpoints()) {
      int added = 0;
      int removed = 0;
      for (var diff : c.changedFiles() ? tree.changeDiffs(c.number()) : java.util.List.<dev.waymark.core.checkpoint.CheckpointDiff.FileDiff>of()) {
        added += diff.added();
        removed += diff.removed();
      }
      all.add(new CheckpointSummary(c.number(), c.parent(), c.status(), c.created(), prompts.apply(c.number()),
          c.changes().size(), added, removed, onPath.contains(c.number()), c.tag(), c.savedNames()));
    }
    return all;
  }
}
