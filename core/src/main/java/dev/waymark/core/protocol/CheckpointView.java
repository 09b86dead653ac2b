package dev.waymark.core.protocol;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * One checkpoint of a tab, as a front end sees it.
 *
 * @param number the checkpoint's number in its tab, {@code 0} for the tab's start
 * @param parent the parent's number; empty for {@code #0}
 * @param changedPaths the paths its turn changed, sorted
 * @param commit the shadow commit holding those changes, in hex; empty when the turn changed nothing
 * @param tag the full ref name of its tag; empty without changes or once retention pruned it
 * @param savedNames the names under which it was saved with {@code save}
 * @param subagentPaths the paths its turn's subagents changed in their tabs, sorted
 */
public record CheckpointView(
    int number,
    OptionalInt parent,
    TurnStatus status,
    Instant created,
    List<String> changedPaths,
    Optional<String> commit,
    Optional<String> tag,
    Set<String> savedNames,
    List<String> subagentPaths) {

  public CheckpointView {
    changedPaths = List.copyOf(changedPaths);
    savedNames = Set.copyOf(savedNames);
    subagentPaths = List.copyOf(subagentPaths);
  }

  /** A checkpoint whose turn ran no subagent. */
  public CheckpointView(int number, OptionalInt parent, TurnStatus status, Instant created, List<String> changedPaths,
      Optional<String> commit, Optional<String> tag, Set<String> savedNames) {
    this(number, parent, status, created, changedPaths, commit, tag, savedNames, List.of());
  }

  /** Whether its turn changed files, itself or through its subagents. */
  public boolean changedFiles() {
    return !changedPaths.isEmpty() || !subagentPaths.isEmpty();
  }

  /** The files its turn changed, itself or through its subagents, each once. */
  public List<String> allChangedPaths() {
    return new TreeSet<>(concat()).stream().toList();
  }

  private List<String> concat() {
    List<String> all = new ArrayList<>(changedPaths);
    all.addAll(subagentPaths);
    return all;
  }
}
