package dev.waymark.core.protocol;

import java.util.List;
import java.util.Optional;

/**
 * What a child tab's own restore did when it moved with its parent's checkpoint: as a
 * {@link RestoreOutcome} says it (from where to where), and which of the written files it deleted.
 */
public record ChildFiles(boolean applied, int from, int target, List<String> written, List<String> deleted, List<String> merged,
    List<String> conflicts, Optional<String> rescueTag, String summary) {
  public ChildFiles {
    written = List.copyOf(written);
    deleted = List.copyOf(deleted);
    merged = List.copyOf(merged);
    conflicts = List.copyOf(conflicts);
  }
}
