package dev.waymark.core.checkpoint.project;

import java.util.List;

/** The ignore rules above the project, from the enclosing git repository: {@link #NONE} without one. */
public record IgnoreContext(String projectPrefix, List<IgnoreSource> sources) {
  public static final IgnoreContext NONE = new IgnoreContext("", List.of());
}
