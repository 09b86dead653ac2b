package dev.waymark.core.checkpoint;

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
 * @param deleted those of {@code written} that the restore removed (the target has no such file)
 * @param action what was done, as the summary begins ("Restored #2", "Reverted #2 as #5")
 * @param view what a land, a discard, or an undo or redo of a land did to the tab's view
 */
public record RestoreResult(
    boolean applied,
    int from,
    int target,
    List<String> written,
    List<String> merged,
    List<String> conflicts,
    Optional<String> rescueTag,
    List<Integer> livePath,
    List<String> deleted,
    String action,
    Optional<ViewAct> view) {

  public RestoreResult {
    written = List.copyOf(written);
    merged = List.copyOf(merged);
    conflicts = List.copyOf(conflicts);
    livePath = List.copyOf(livePath);
    deleted = List.copyOf(deleted);
  }

  /** Without a view's part. */
  public RestoreResult(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Optional<String> rescueTag, List<Integer> livePath, List<String> deleted, String action) {
    this(applied, from, target, written, merged, conflicts, rescueTag, livePath, deleted, action, Optional.empty());
  }

  /** The same with {@code act} as its view's part. */
  public RestoreResult with(ViewAct act) {
    return new RestoreResult(applied, from, target, written, merged, conflicts, rescueTag, livePath, deleted, action,
        Optional.of(act));
  }

  /** A restore to {@code target}. */
  public RestoreResult(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Optional<String> rescueTag, List<Integer> livePath) {
    this(applied, from, target, written, merged, conflicts, rescueTag, livePath, List.of(), "Restored #" + target);
  }

  /** A restore to {@code target} that removed {@code deleted}. */
  public RestoreResult(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Optional<String> rescueTag, List<Integer> livePath, List<String> deleted) {
    this(applied, from, target, written, merged, conflicts, rescueTag, livePath, deleted, "Restored #" + target);
  }

  /** Something other than a plain restore ({@code action}: "Reverted #2 as #5", ...). */
  public RestoreResult(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Optional<String> rescueTag, List<Integer> livePath, String action) {
    this(applied, from, target, written, merged, conflicts, rescueTag, livePath, List.of(), action);
  }
}
