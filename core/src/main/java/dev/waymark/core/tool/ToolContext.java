package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.model.Cancellation;
import java.nio.file.Path;

/** Where a tool call runs: the project root, the running checkpoint to record changes in, and the turn's cancel switch. */
public record ToolContext(Path projectRoot, Turn turn, Cancellation cancellation) {}
