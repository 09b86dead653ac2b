package dev.waymark.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolArguments;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Sensitive;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolResult;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the model's tool calls: proposes each to the front ends, asks for approval when the mode or
 * the file's sensitivity wants it (and denies when nobody can answer), then runs it in the turn.
 */
final class ApprovalGate {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalGate.class);

  private final Toolset tools;
  private final SessionSettings settings;
  private final Path projectRoot;
  private final Consumer<Event> emit;
  private final Set<String> allowedForSession = ConcurrentHashMap.newKeySet();

  ApprovalGate(Toolset tools, SessionSettings settings, Path projectRoot, Consumer<Event> emit) {
    this.tools = tools;
    this.settings = settings;
    this.projectRoot = projectRoot;
    this.emit = emit;
  }

  /** Lets {@code tool} run unasked for the rest of the session (not for secrets and Waymark's files). */
  void allowForSession(String tool) {
    allowedForSession.add(tool);
  }

  /** Runs {@code call} in {@code turn}, asking first unless it was {@code approved} already; the result for the model. */
  ChatMessage.ToolResult run(ToolCall call, Turn turn, RunningTurn state, boolean approved) {
    Optional<Tool> found = tools.find(call.name());
    if (found.isEmpty()) {
      return finish(state, call, ToolResult.error("Unknown tool \"" + call.name() + "\". Available: "
          + String.join(", ", tools.specs().stream().map(s -> s.name()).toList())));
    }
    Tool tool = found.get();
    JsonNode arguments;
    try {
      arguments = ToolArguments.parse(call.argumentsJson());
    } catch (java.io.IOException e) {
      return finish(state, call, ToolResult.error("Not run: the arguments of " + call.name()
          + " are not exactly one JSON object (" + e.getMessage() + "). Send one call per tool use."));
    }
    Optional<Sensitive> sensitive = tool.sensitive(arguments, projectRoot);
    boolean needsApproval = !approved && (sensitive.isPresent()
        || settings.approval().needsApproval(tool.kind(arguments)) && !allowedForSession.contains(tool.name()));
    boolean ask = needsApproval && settings.interactive();
    CompletableFuture<RunningTurn.Decision> answer = ask ? state.expectDecision(call) : null; // before anyone can answer
    String summary = tool.describe(arguments) + sensitive.map(s -> " — " + s.summary()).orElse("");
    emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), summary,
        tool.preview(arguments, projectRoot), needsApproval));
    if (needsApproval) {
      if (!ask) {
        emit.accept(new Event.Warning("Denied " + call.name() + " (" + tool.describe(arguments) + "): " + sensitive.map(Sensitive::denial)
            .orElse("it needs approval and there is nobody to ask. Use --approval "
                + advice(tool.kind(arguments)) + " to allow it.")));
        return finish(state, call, ToolResult.error("Denied: this call needs the user's approval, and none can be given "
            + "in this non-interactive run."));
      }
      RunningTurn.Decision decision = state.awaitDecision(answer);
      if (decision == null) {
        return finish(state, call, ToolResult.error("Not run: the user interrupted the turn."));
      }
      if (!decision.allow()) {
        return finish(state, call, ToolResult.error("The user denied this call" + (decision.reason().isBlank() ? "." : ": " + decision.reason())));
      }
      if (decision.forSession() && sensitive.isEmpty()) { // secrets and Waymark's files are asked about each time
        allowedForSession.add(tool.name());
      }
    }
    ToolResult result;
    try {
      result = tool.run(arguments, new ToolContext(projectRoot, turn, state.cancellation));
    } catch (RuntimeException e) {
      LOG.error("tool {} failed", call.name(), e);
      result = ToolResult.error(call.name() + " failed: " + e.getMessage());
    }
    return finish(state, call, result);
  }

  /** The approval modes that would let a call of {@code kind} run unasked. */
  private static String advice(dev.waymark.core.tool.ToolKind kind) {
    return !ApprovalMode.AUTO_EDIT.needsApproval(kind) ? "auto-edit or yolo"
        : !ApprovalMode.AUTO.needsApproval(kind) ? "auto or yolo" : "yolo";
  }

  private ChatMessage.ToolResult finish(RunningTurn state, ToolCall call, ToolResult result) {
    emit.accept(new Event.ToolCallFinished(state.checkpoint, ProtocolViews.toolCall(call), result.content(),
        result.isError()));
    return new ChatMessage.ToolResult(call.id(), call.name(), result.content(), result.isError());
  }
}
