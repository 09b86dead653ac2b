package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.FileChange;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;

/**
 * An immutable picture of one checkpoint in a tab's tree.
 *
 * @param number the checkpoint's number in its tab, {@code 0} for the tab's start
 * @param parent the parent's number, or {@code -1} for {@code #0}
 * @param changes one entry per path its turn changed, before and after, sorted by path
 * @param commit the shadow commit holding those changes; empty when the turn changed nothing
 * @param tag the full ref name of its tag; empty without changes or once retention pruned it
 * @param savedNames the names under which it was saved with {@code save}
 * @param children the tabs its turn's subagents worked in, which move with it
 */
public record Checkpoint(
    int number,
    int parent,
    CheckpointStatus status,
    Instant created,
    List<FileChange> changes,
    Optional<ObjectId> commit,
    Optional<String> tag,
    Set<String> savedNames,
    List<ChildLink> children) {

  public Checkpoint {
    changes = List.copyOf(changes);
    savedNames = Set.copyOf(savedNames);
    children = List.copyOf(children);
  }

  /** A checkpoint whose turn started no subagent. */
  public Checkpoint(int number, int parent, CheckpointStatus status, Instant created, List<FileChange> changes,
      Optional<ObjectId> commit, Optional<String> tag, Set<String> savedNames) {
    this(number, parent, status, created, changes, commit, tag, savedNames, List.of());
  }

  public boolean changedFiles() {
    return !changes.isEmpty();
  }
}
