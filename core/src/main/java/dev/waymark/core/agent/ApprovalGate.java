package dev.waymark.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.hook.HookVerdict;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolArguments;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.PlanUse;
import dev.waymark.core.tool.Sensitive;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolKind;
import dev.waymark.core.tool.ToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the model's tool calls: refuses those a deny rule matches, proposes each other to the front
 * ends, asks for approval when the mode or the file's sensitivity wants it and no allow rule covers
 * it (and denies when nobody can answer), then runs it in the turn.
 */
final class ApprovalGate {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalGate.class);

  private final Toolset tools;
  private final Supplier<SessionSettings> settings;
  private final Path projectRoot;
  private final Consumer<Event> emit;
  private final Permissions permissions;
  private final TabHooks hooks;

  ApprovalGate(Toolset tools, Supplier<SessionSettings> settings, Path projectRoot, Consumer<Event> emit,
      Permissions permissions, TabHooks hooks) {
    this.hooks = hooks;
    this.tools = tools;
    this.settings = settings;
    this.projectRoot = projectRoot;
    this.emit = emit;
    this.permissions = permissions;
  }

  /**
   * Lets calls like {@code call} run unasked for the rest of the session: for a shell command, the
   * commands starting with its safe prefix, else that exact command; for another tool, the tool.
   * Never covers secrets and Waymark's files, which are asked about each time.
   */
  void allowForSession(ToolCall call) {
    try {
      permissions.add(new Permissions.Entry(Permissions.Scope.SESSION, false, suggest(call.name(), call.argumentsJson())));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a session rule is written nowhere
    }
  }

  /**
   * The rule that allows calls like this one from now on, by the name rules know the tool by: an MCP
   * tool's server's own name for it, never the name offered to the model.
   */
  PermissionRule suggest(String name, String argumentsJson) {
    Optional<String> command = Optional.empty();
    try {
      JsonNode arguments = ToolArguments.parse(argumentsJson);
      command = tools.find(name).flatMap(tool -> tool.ruleSubject(arguments)).or(() -> shellCommand(name, arguments));
    } catch (IOException e) {
      // no command to judge: the rule is the tool's, as for any other tool
    }
    return PermissionRule.suggest(tools.find(name).map(Tool::ruleName).orElse(name), command);
  }

  /** The command line of a run_shell call, which shell rules judge; empty for other tools. */
  static Optional<String> shellCommand(String tool, JsonNode arguments) {
    return tool.equals(PermissionRule.SHELL) && arguments.path("command").isTextual()
        ? Optional.of(arguments.path("command").asText()) : Optional.empty();
  }

  /** Runs {@code call} in {@code turn}, asking first unless it was {@code approved} already; the result for the model. */
  ChatMessage.ToolResult run(ToolCall call, Turn turn, RunningTurn state, boolean approved) {
    Optional<Tool> found = tools.find(call.name());
    if (found.isEmpty()) {
      return finish(state, call, ToolResult.error(ErrorKind.NOT_FOUND, "Unknown tool \"" + call.name() + "\". Available: "
          + String.join(", ", tools.specs().stream().map(s -> s.name()).toList())));
    }
    Tool tool = found.get();
    JsonNode arguments;
    try {
      arguments = ToolArguments.parse(call.argumentsJson());
    } catch (IOException e) {
      return finish(state, call, ToolResult.error(ErrorKind.REFUSED, "Not run: the arguments of " + call.name()
          + " are not exactly one JSON object (" + e.getMessage() + "). Send one call per tool use."));
    }
    ApprovalMode mode = settings.get().approval(); // read per call: Shift+Tab during a turn applies to its next call
    boolean plan = mode == ApprovalMode.PLAN;
    PlanUse planUse = plan ? tool.inPlan(arguments) : PlanUse.as(tool.kind(arguments));
    if (planUse.kind().isEmpty()) {
      emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), tool.describe(arguments),
          "", false));
      return finish(state, call, ToolResult.error(ErrorKind.REFUSED, "Not run: the tab is in plan mode, where only reading tools ("
          + readingTools() + "), sandboxed shell commands on the read-only project and MCP tools declared read-only run"
          + (planUse.refusal().isBlank() ? "" : "; " + planUse.refusal())
          + ". Make no changes now: finish investigating and answer with your plan."));
    }
    ToolKind kind = planUse.kind().get();
    Permissions.Verdict verdict = permissions.check(tool.ruleName(),
        tool.ruleSubject(arguments).or(() -> shellCommand(call.name(), arguments)));
    if (verdict.outcome() == Permissions.Outcome.DENY) {
      Permissions.Entry rule = verdict.because().orElseThrow();
      emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), tool.describe(arguments), "", false));
      emit.accept(new Event.Warning("Denied " + call.name() + " (" + tool.describe(arguments) + ") by the rule \""
          + rule.rule() + "\" in " + rule.scope().label() + " (the interface's /permissions lists the rules)."));
      return finish(state, call, ToolResult.error(ErrorKind.DENIED, "Denied by the user's rule \"" + rule.rule() + "\": this call is not "
          + "allowed. Do not retry it; find another way or ask the user."));
    }
    Map<String, FileChange> before = changesByPath(turn); // a hook's changes are the call's
    // hooks know a tool as rules do: an MCP tool as mcp__SERVER__TOOL, Claude Code's name for it
    HookVerdict pre = hooks.preToolUse(tool.ruleName(), arguments, turn, state.cancellation);
    if (state.cancellation.isCancelled()) { // Esc while the hook ran: the call it was asked about is not run
      emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), tool.describe(arguments), "", false));
      return finish(state, call, ToolResult.error(ErrorKind.INTERRUPTED, "Not run: the user interrupted the turn."), changedSince(before, turn));
    }
    if (pre.stops().isPresent()) {
      emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), tool.describe(arguments), "", false));
      stopTurn(state, pre, "PreToolUse");
      return finish(state, call, ToolResult.error(ErrorKind.DENIED, "Not run: " + pre.named("PreToolUse") + " stopped the turn."),
          changedSince(before, turn));
    }
    if (pre.blocks()) {
      String reason = pre.reason();
      emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), tool.describe(arguments), "", false));
      emit.accept(new Event.Warning(pre.namedFirst("PreToolUse") + " blocked " + call.name() + " (" + tool.describe(arguments) + "): "
          + reason));
      return finish(state, call, ToolResult.error(ErrorKind.DENIED, "Blocked by " + pre.named("PreToolUse") + ": " + reason), changedSince(before, turn));
    }
    // a hook's "allow" stands for an allow rule, its "ask" asks whatever the mode; secrets are asked about still
    Optional<String> hookSaid = pre.permission();
    Optional<Sensitive> sensitive = tool.sensitive(arguments, projectRoot);
    boolean needsApproval = !approved && (sensitive.isPresent() || hookSaid.equals(Optional.of("ask"))
        || mode.needsApproval(kind) && verdict.outcome() != Permissions.Outcome.ALLOW
        && !tool.preApproved() && !hookSaid.equals(Optional.of("allow")));
    boolean ask = needsApproval && settings.get().interactive();
    CompletableFuture<RunningTurn.Decision> answer = ask ? state.expectDecision(call) : null; // before anyone can answer
    String summary = tool.describe(arguments) + sensitive.map(s -> " — " + s.summary()).orElse("");
    emit.accept(new Event.ToolCallProposed(state.checkpoint, ProtocolViews.toolCall(call), summary,
        tool.preview(arguments, new ToolContext(projectRoot, turn, state.cancellation)), needsApproval));
    if (needsApproval) {
      if (ask) {
        hooks.notification("Waymark needs your permission to use " + call.name(), turn, state.cancellation);
      }
      if (!ask) {
        emit.accept(new Event.Warning("Denied " + call.name() + " (" + tool.describe(arguments) + "): " + sensitive.map(Sensitive::denial)
            .orElse("it needs approval and there is nobody to ask. Use --approval "
                + advice(kind) + " to allow it.")));
        return finish(state, call, ToolResult.error(ErrorKind.DENIED, "Denied: this call needs the user's approval, and none can be given "
            + "in this non-interactive run."));
      }
      RunningTurn.Decision decision = state.awaitDecision(answer);
      if (decision == null) {
        return finish(state, call, ToolResult.error(ErrorKind.INTERRUPTED, "Not run: the user interrupted the turn."));
      }
      if (!decision.allow()) {
        return finish(state, call, ToolResult.error(ErrorKind.DENIED, "The user denied this call" + (decision.reason().isBlank() ? "." : ": " + decision.reason())));
      }
      if (decision.forSession() && sensitive.isEmpty()) { // secrets and Waymark's files are asked about each time
        allowForSession(call);
      }
    }
    ToolResult result;
    try {
      result = tool.run(arguments, new ToolContext(projectRoot, turn, state.cancellation, plan,
          text -> emit.accept(new Event.ToolOutput(state.checkpoint, call.id(), text))));
    } catch (RuntimeException e) {
      LOG.error("tool {} failed", call.name(), e);
      result = ToolResult.error(ErrorKind.INTERNAL, call.name() + " failed: " + e.getMessage());
    }
    result = afterHooks(tool.ruleName(), arguments, result, turn, state);
    return finish(state, call, result, changedSince(before, turn));
  }

  /**
   * The result, after a call that succeeded, with what PostToolUse hooks said for the model: a block's reason (the call ran; the
   * model is told why the user's hook objects) and the context they add.
   */
  private ToolResult afterHooks(String toolName, JsonNode arguments, ToolResult result, Turn turn, RunningTurn state) {
    if (result.isError()) {
      return result; // as in Claude Code: a formatter is not run over a write that failed
    }
    Map<String, FileChange> before = changesByPath(turn);
    HookVerdict post = hooks.postToolUse(toolName, arguments, result, turn, state.cancellation);
    // what the turn holds for a path after the hook, against before it: a formatter that rewrote the same bytes changed nothing
    List<String> changed = changedSince(before, turn).stream().filter(post.changedPaths()::contains).toList();
    if (post.stops().isPresent()) {
      stopTurn(state, post, "PostToolUse");
    }
    StringBuilder said = new StringBuilder();
    if (post.blocks()) {
      said.append("\n[").append(post.named("PostToolUse")).append(" objects: ").append(post.reason()).append(']');
    }
    if (!post.context().isBlank()) {
      said.append("\n[PostToolUse hook: ").append(post.context()).append(']');
    }
    if (!changed.isEmpty()) {
      said.append("\n[").append(post.named("PostToolUse")).append(" changed ").append(String.join(", ", changed))
          .append(" (recorded with this call)]");
    }
    return said.length() == 0 ? result : new ToolResult(result.content() + said, result.errorKind());
  }

  /** A hook said {@code "continue": false}: the turn ends as if interrupted, what it did so far kept. */
  private void stopTurn(RunningTurn state, HookVerdict said, String event) {
    String reason = said.stops().orElse("");
    emit.accept(new Event.Warning(said.namedFirst(event) + " stopped the turn" + (reason.isBlank() ? "." : ": " + reason)));
    state.cancel();
  }

  private static List<String> changedSince(Map<String, FileChange> before, Turn turn) {
    Map<String, FileChange> after = changesByPath(turn);
    return after.keySet().stream()
        .filter(path -> !Objects.equals(before.get(path), after.get(path))).sorted().toList();
  }

  private static Map<String, FileChange> changesByPath(Turn turn) {
    Map<String, FileChange> byPath = new HashMap<>();
    turn.changes().forEach(change -> byPath.put(change.path(), change));
    return byPath;
  }

  private String readingTools() {
    return String.join(", ", tools.specs().stream().map(s -> s.name())
        .filter(name -> tools.find(name).map(t -> t.kind() == ToolKind.READ).orElse(false)).toList());
  }

  /** The approval modes that would let a call of {@code kind} run unasked. */
  private static String advice(ToolKind kind) {
    return !ApprovalMode.AUTO_EDIT.needsApproval(kind) ? "auto-edit or yolo"
        : !ApprovalMode.AUTO.needsApproval(kind) ? "auto or yolo" : "yolo";
  }

  private ChatMessage.ToolResult finish(RunningTurn state, ToolCall call, ToolResult result) {
    return finish(state, call, result, List.of());
  }

  private ChatMessage.ToolResult finish(RunningTurn state, ToolCall call, ToolResult result, List<String> changedPaths) {
    emit.accept(new Event.ToolCallFinished(state.checkpoint, ProtocolViews.toolCall(call), result.content(),
        result.isError(), changedPaths, result.errorKind()));
    return new ChatMessage.ToolResult(call.id(), call.name(), result.content(), result.isError());
  }
}
