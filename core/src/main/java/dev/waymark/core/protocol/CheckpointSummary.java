package dev.waymark.core.protocol;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One line of a checkpoint list: what a user needs to pick a checkpoint.
 *
 * @param parent the parent's number; empty for {@code #0}
 * @param prompt the prompt that opened it (empty for {@code #0})
 * @param added lines its own changes added, over all files
 * @param onLivePath false for a checkpoint that was undone or left by a branch
 */
public record CheckpointSummary(
    int number,
    OptionalInt parent,
    TurnStatus status,
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
}
