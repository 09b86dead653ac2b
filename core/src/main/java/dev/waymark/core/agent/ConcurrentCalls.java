package dev.waymark.core.agent;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.tool.Tool;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Starts at once the calls of one model response whose tools run side by side ({@link Tool#concurrent()}:
 * several {@code task} calls are several subagents working together); the turn then takes their
 * results in the response's order, as it does the others'. One such call alone runs as any other.
 */
final class ConcurrentCalls {
  private ConcurrentCalls() {}

  /**
   * The results to come of the concurrent calls among {@code calls}, by call id; empty unless two or more.
   * Only the first {@code stepsLeft} calls may run at all (the turn's step limit), and none once cancelled.
   */
  static Map<String, CompletableFuture<ChatMessage.ToolResult>> start(List<ToolCall> calls, Toolset tools, int stepsLeft,
      RunningTurn state, Function<ToolCall, ChatMessage.ToolResult> run) {
    List<ToolCall> eligible = calls.subList(0, Math.max(0, Math.min(stepsLeft, calls.size()))).stream()
        .filter(call -> tools.find(call.name()).map(Tool::concurrent).orElse(false)).toList();
    Map<String, CompletableFuture<ChatMessage.ToolResult>> started = new HashMap<>();
    if (eligible.size() < 2 || state.cancellation.isCancelled()) {
      return started;
    }
    for (ToolCall call : eligible) {
      CompletableFuture<ChatMessage.ToolResult> result = new CompletableFuture<>();
      Thread thread = new Thread(() -> {
        try {
          result.complete(run.apply(call));
        } catch (RuntimeException | Error e) {
          result.complete(new ChatMessage.ToolResult(call.id(), call.name(), call.name() + " failed: " + e.getMessage(),
              true));
        }
      }, "call-" + call.id());
      thread.setDaemon(true);
      started.put(call.id(), result);
      thread.start();
    }
    return started;
  }
}
