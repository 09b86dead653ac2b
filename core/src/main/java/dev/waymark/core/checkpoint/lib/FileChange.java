package dev.waymark.core.checkpoint.lib;

import java.util.Objects;

/** What one checkpoint did to one path: the version before its turn and the version after. */
public record FileChange(String path, FileVersion before, FileVersion after) {
  public FileChange {
    Objects.requireNonNull(path);
    Objects.requireNonNull(before);
    Objects.requireNonNull(after);
  }
}
