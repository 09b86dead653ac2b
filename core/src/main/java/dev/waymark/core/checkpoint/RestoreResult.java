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
 * @param action what was done, as the summary begins ("Restored #2", "Reverted #2 as #5")
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
    String action) {

  public RestoreResult {
    written = List.copyOf(written);
    merged = List.copyOf(merged);
    conflicts = List.copyOf(conflicts);
    livePath = List.copyOf(livePath);
  }

  /** A restore to {@code target}. */
  public RestoreResult(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Optional<String> rescueTag, List<Integer> livePath) {
    this(applied, from, target, written, merged, conflicts, rescueTag, livePath, "Restored #" + target);
  }

  /** A one-line account for a user. */
  public String summary() {
    if (!applied) {
      return "Nothing " + (action.startsWith("Reverted") ? "reverted" : "restored") + ": " + conflicts.size()
          + " file(s) were changed since by someone else and clash with #" + target + ": " + String.join(", ", conflicts)
          + ". Resolve them, or repeat with --force (what is on disk now is kept under a rescued tag).";
    }
    if (written.isEmpty() && merged.isEmpty() && conflicts.isEmpty() && action.startsWith("Restored the conversation")) {
      return action + "; the files stay as they are.";
    }
    StringBuilder s = new StringBuilder(action + ": " + written.size() + " file(s) written");
    if (!merged.isEmpty()) {
      s.append(", ").append(merged.size()).append(" merged with later edits (").append(String.join(", ", merged)).append(')');
    }
    if (!conflicts.isEmpty()) {
      s.append(", ").append(conflicts.size()).append(" overwritten by force (kept under ")
          .append(rescueTag.orElse("?")).append(')');
    }
    return s.append('.').toString();
  }
}
