package dev.waymark.core.tool;

import java.util.Optional;

/**
 * How a call fares in plan mode, where nothing may change: it runs as {@code kind} (which decides
 * whether it is asked about), or it is refused, and {@code refusal} tells the model why.
 */
public record PlanUse(Optional<ToolKind> kind, String refusal) {
  public static PlanUse as(ToolKind kind) {
    return new PlanUse(Optional.of(kind), "");
  }

  public static PlanUse refused(String why) {
    return new PlanUse(Optional.empty(), why);
  }
}
