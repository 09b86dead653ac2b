package dev.waymark.core.checkpoint;

import dev.waymark.core.Counted;
import java.util.ArrayList;
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
    String action) {

  public RestoreResult {
    written = List.copyOf(written);
    merged = List.copyOf(merged);
    conflicts = List.copyOf(conflicts);
    livePath = List.copyOf(livePath);
    deleted = List.copyOf(deleted);
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

  /** A one-line account for a user. */
  public String summary() {
    if (!applied) {
      return "Nothing " + (action.startsWith("Reverted") ? "reverted" : "restored") + ": "
          + Counted.of(conflicts.size(), "file was changed since by someone else and clashes",
              "files were changed since by someone else and clash") + " with #" + target + ": "
          + String.join(", ", conflicts)
          + ". Resolve them, or repeat with --force (what is on disk now is kept under a rescued tag).";
    }
    if (written.isEmpty() && merged.isEmpty() && conflicts.isEmpty() && action.startsWith("Restored the conversation")) {
      return action + "; the files stay as they are.";
    }
    // a file taken away is not "written": say which of the two each was, each file once
    List<String> deletedByForce = conflicts.stream().filter(deleted::contains).toList();
    long put = written.stream().filter(p -> !deleted.contains(p) && !conflicts.contains(p)).count();
    long gone = deleted.stream().filter(p -> !conflicts.contains(p)).count();
    List<String> parts = new ArrayList<>();
    if (put > 0) {
      parts.add(put + (put == 1 ? " file written" : " files written"));
    }
    if (gone > 0) {
      parts.add(gone + (gone == 1 ? " file deleted" : " files deleted"));
    }
    if (!merged.isEmpty()) {
      parts.add(merged.size() + " merged with later edits (" + String.join(", ", merged) + ")");
    }
    int overwritten = conflicts.size() - deletedByForce.size();
    if (overwritten > 0) {
      parts.add(overwritten + " overwritten by force");
    }
    if (!deletedByForce.isEmpty()) { // a created file a revert takes away, though the user had changed it
      parts.add(deletedByForce.size() + " deleted by force");
    }
    if (!conflicts.isEmpty()) {
      parts.set(parts.size() - 1, parts.get(parts.size() - 1) + " (kept under " + rescueTag.orElse("?") + ")");
    }
    return action + ": " + (parts.isEmpty() ? "no file changed" : String.join(", ", parts)) + ".";
  }
}
