package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Moves the project's files from one checkpoint of a tab to another, path by path: check every
 * planned path against the disk ({@link RestoreCheck}), stop on a clash unless forced (then keep
 * what it overwrites under a rescued tag), then journal and write ({@link RestoreWrite}).
 */
public final class FileRestore {
  /** What a restore did; {@code changes} is every write it made, what it replaced and what it wrote. */
  public record Outcome(boolean applied, List<String> written, List<String> merged, List<String> conflicts,
      Optional<String> rescueTag, List<FileChange> changes) {
    public static final Outcome NOTHING = new Outcome(true, List.of(), List.of(), List.of(), Optional.empty(), List.of());

    Outcome(boolean applied, List<String> written, List<String> merged, List<String> conflicts, Optional<String> rescueTag) {
      this(applied, written, merged, conflicts, rescueTag, List.of());
    }

    /** Those of {@code written} the restore removed, since the target has no such file. */
    public List<String> deleted() {
      return changes.stream().filter(c -> !c.after().exists() && written.contains(c.path())).map(FileChange::path).toList();
    }
  }

  private final RestoreParts parts;
  private final Map<String, Planned> plan;
  /** The checkpoint named in messages and the journal: the restore's target, or the one a revert takes back. */
  private final int to;
  private final boolean force;

  /** A restore of {@code plan}'s paths for the tab {@code parts} serves; checkpoint {@code subject} names it in messages. */
  public FileRestore(RestoreParts parts, Map<String, Planned> plan, int subject, boolean force) {
    this.parts = parts;
    this.plan = plan;
    this.to = subject;
    this.force = force;
  }

  public Outcome run(int liveNumber) {
    if (plan.isEmpty()) {
      return Outcome.NOTHING;
    }
    return parts.lock().run(() -> execute(plan, liveNumber));
  }

  private Outcome execute(Map<String, Planned> plan, int liveNumber) throws IOException {
    RestoreCheck check = new RestoreCheck(parts, plan, to, force);
    RestoreCheck.Checked found = check.check();
    Map<String, RestoreStep> steps = found.steps();
    List<String> written = found.written();
    List<String> merged = found.merged();
    Map<String, String> conflicts = found.conflicts();
    Map<String, WorkTree.DiskFile> conflictDisk = found.conflictDisk();
    Map<String, FileStamp> checked = found.checked();
    long checkedAt = found.checkedAt();
    if (!conflicts.isEmpty() && !force) {
      return new Outcome(false, List.of(), List.of(), new ArrayList<>(conflicts.keySet()), Optional.empty());
    }
    List<String> unforceable = new ArrayList<>();
    for (var entry : conflicts.entrySet()) {
      if (!entry.getValue().isEmpty()) {
        unforceable.add(entry.getValue());
      }
    }
    if (!unforceable.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.CLASH, "Cannot restore #" + to + ", even by force: " + String.join("; ", unforceable) + ".");
    }

    Optional<String> rescueTag = Optional.empty();
    if (!conflicts.isEmpty()) {
      Map<String, FileVersion> rescued = check.rescue(conflicts.keySet(), conflictDisk);
      rescueTag = Optional.of(parts.rescue().commit(rescued, liveNumber, to));
      for (var entry : rescued.entrySet()) {
        steps.put(entry.getKey(), new RestoreStep(entry.getKey(), entry.getValue(), plan.get(entry.getKey()).target()));
      }
    }

    Optional<String> changedMeanwhile = new RestoreWrite(parts, to).apply(new ArrayList<>(steps.values()), checked, checkedAt,
        liveNumber);
    if (changedMeanwhile.isPresent()) {
      return new Outcome(false, List.of(), List.of(), List.of(changedMeanwhile.get()), rescueTag);
    }
    written.sort(null);
    merged.sort(null);
    List<FileChange> changes = new ArrayList<>();
    for (RestoreStep step : steps.values()) {
      changes.add(new FileChange(step.path(), step.prior(), step.next()));
    }
    return new Outcome(true, written, merged, new ArrayList<>(conflicts.keySet()), rescueTag, changes);
  }

  /** At least this many files to write: they are written in parallel. */
  public static final int PARALLEL_WRITES = RestoreWrite.PARALLEL_WRITES;
}
