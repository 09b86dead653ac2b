package dev.waymark.core.protocol;

import java.util.List;
import java.util.Optional;

/**
 * What a restore (undo, redo, goto, branch or an explicit restore) did.
 *
 * @param applied false when conflicts stopped it: then nothing at all was changed
 * @param from the live checkpoint before
 * @param target the checkpoint restored to
 * @param written files set to the target's exact content (created, replaced or deleted)
 * @param merged files where someone else's later edit was kept by a three-way merge
 * @param conflicts files whose later edits clash with the restore; on a forced restore these were
 *     overwritten and what was on disk is kept under {@code rescueTag}
 * @param rescueTag the tag holding what a forced restore overwrote ({@code disk/<path>})
 * @param livePath the checkpoints now on the live path, {@code #0} first
 * @param summary a one-line account for a user
 * @param children what it did in the tabs the checkpoints it crossed own (their subagents'), each
 *     moved with them; {@code written} and the others count only this tab's files
 */
public record RestoreOutcome(
    boolean applied,
    int from,
    int target,
    List<String> written,
    List<String> merged,
    List<String> conflicts,
    Optional<String> rescueTag,
    List<Integer> livePath,
    String summary,
    List<ChildRestore> children) {

  public RestoreOutcome {
    written = List.copyOf(written);
    merged = List.copyOf(merged);
    conflicts = List.copyOf(conflicts);
    livePath = List.copyOf(livePath);
    children = List.copyOf(children);
  }

  /** A restore that moved no other tab. */
  public RestoreOutcome(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Optional<String> rescueTag, List<Integer> livePath, String summary) {
    this(applied, from, target, written, merged, conflicts, rescueTag, livePath, summary, List.of());
  }
}
