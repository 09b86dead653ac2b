package dev.waymark.core.bisect;

import java.util.List;
import java.util.OptionalInt;

/**
 * How a bisect ended.
 *
 * @param path the checkpoints from the good end to the bad one, in order
 * @param firstBad the first checkpoint where the command fails, when found
 * @param candidates when skipped checkpoints leave it open, those among which the first bad one is
 * @param message one sentence for the user: what was found, or why nothing was
 */
public record BisectResult(Outcome outcome, List<Integer> path, OptionalInt firstBad, List<Integer> candidates,
    List<BisectStep> steps, String message) {
  public BisectResult {
    path = List.copyOf(path);
    candidates = List.copyOf(candidates);
    steps = List.copyOf(steps);
  }

  public enum Outcome {
    /** The first bad checkpoint was found. */
    FOUND,
    /** The command passes at the bad end: nothing to look for. */
    NEVER_FAILS,
    /** The command fails at the good end already. */
    FAILS_AT_GOOD,
    /** Skipped checkpoints leave the first bad one among {@code candidates}. */
    AMBIGUOUS,
    /** A run aborted (128 and above, a timeout) or could not be run. */
    ABORTED,
    /** Nothing was run: the path or the sandbox does not allow it. */
    REFUSED
  }

  static BisectResult refused(String why) {
    return new BisectResult(Outcome.REFUSED, List.of(), OptionalInt.empty(), List.of(), List.of(), why);
  }

  public boolean found() {
    return outcome == Outcome.FOUND;
  }
}
