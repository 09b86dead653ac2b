package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.model.Cancellation;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Where a tool call runs: the project root, the running checkpoint to record changes in, the turn's
 * cancel switch, and whether the call may change nothing ({@code readOnly}: plan mode), which a shell
 * command honours by running in the sandbox with the project mounted read-only, and where what the
 * call prints goes while it runs ({@code output}: the front ends, as {@code Event.ToolOutput}).
 */
public record ToolContext(Path projectRoot, Turn turn, Cancellation cancellation, boolean readOnly,
    Consumer<String> output) {
  public ToolContext(Path projectRoot, Turn turn, Cancellation cancellation) {
    this(projectRoot, turn, cancellation, false, text -> { });
  }
}
