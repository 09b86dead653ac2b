package dev.waymark.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.hook.HookEvent;
import dev.waymark.core.hook.HookVerdict;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ToolResult;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A tab's hooks: the JSON object each event's hooks get on standard input, in Claude Code's
 * fields, and the warning the tab shows for a hook that failed (which never fails the turn).
 */
final class TabHooks {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String tabId;
  private final Path projectRoot;
  private final Supplier<SessionSettings> settings;
  private final Consumer<Event> emit;
  private volatile Hooks hooks = Hooks.NONE;
  /** The file of the session the tab is in, as Claude Code's {@code transcript_path}; empty while it has none. */
  private volatile Supplier<Optional<Path>> transcript = Optional::empty;

  TabHooks(String tabId, Path projectRoot, Supplier<SessionSettings> settings, Consumer<Event> emit) {
    this.tabId = tabId;
    this.projectRoot = projectRoot;
    this.settings = settings;
    this.emit = emit;
  }

  void set(Hooks configured) {
    hooks = configured;
  }

  void transcript(Supplier<Optional<Path>> sessionFile) {
    transcript = sessionFile;
  }

  Hooks configured() {
    return hooks;
  }

  HookVerdict preToolUse(String tool, JsonNode arguments, Turn turn, Cancellation cancellation) {
    ObjectNode input = input(HookEvent.PRE_TOOL_USE);
    input.put("tool_name", tool).set("tool_input", toolInput(arguments));
    return fire(HookEvent.PRE_TOOL_USE, Optional.of(tool), input, Optional.of(turn), cancellation);
  }

  HookVerdict postToolUse(String tool, JsonNode arguments, ToolResult result, Turn turn, Cancellation cancellation) {
    ObjectNode input = input(HookEvent.POST_TOOL_USE);
    input.put("tool_name", tool).set("tool_input", toolInput(arguments));
    input.putObject("tool_response").put("content", result.content()).put("is_error", result.isError())
        .put("success", !result.isError());
    return fire(HookEvent.POST_TOOL_USE, Optional.of(tool), input, Optional.of(turn), cancellation);
  }

  HookVerdict userPromptSubmit(String prompt, Turn turn, Cancellation cancellation) {
    ObjectNode input = input(HookEvent.USER_PROMPT_SUBMIT);
    input.put("prompt", prompt);
    return fire(HookEvent.USER_PROMPT_SUBMIT, Optional.empty(), input, Optional.of(turn), cancellation);
  }

  /** {@code active}: the turn goes on already because a Stop hook blocked its end, as Claude Code's {@code stop_hook_active}. */
  HookVerdict stop(boolean active, Turn turn, Cancellation cancellation) {
    ObjectNode input = input(HookEvent.STOP);
    input.put("stop_hook_active", active);
    return fire(HookEvent.STOP, Optional.empty(), input, Optional.of(turn), cancellation);
  }

  /** {@code trigger}: {@code manual} for /compact, {@code auto} for one Waymark starts. */
  HookVerdict preCompact(String trigger, Turn turn, Cancellation cancellation) {
    ObjectNode input = input(HookEvent.PRE_COMPACT);
    input.put("trigger", trigger).put("custom_instructions", "");
    return fire(HookEvent.PRE_COMPACT, Optional.empty(), input, Optional.of(turn), cancellation);
  }

  void notification(String message, Turn turn, Cancellation cancellation) {
    ObjectNode input = input(HookEvent.NOTIFICATION);
    input.put("message", message).put("notification_type", "permission_prompt");
    fire(HookEvent.NOTIFICATION, Optional.empty(), input, Optional.of(turn), cancellation);
  }

  /** Outside a turn: what the hook changes is not recorded in any checkpoint. */
  HookVerdict sessionStart(String source) {
    ObjectNode input = input(HookEvent.SESSION_START);
    input.put("source", source);
    return fire(HookEvent.SESSION_START, Optional.empty(), input, Optional.empty(), new Cancellation());
  }

  void sessionEnd(String reason) {
    ObjectNode input = input(HookEvent.SESSION_END);
    input.put("reason", reason);
    fire(HookEvent.SESSION_END, Optional.empty(), input, Optional.empty(), new Cancellation());
  }

  private ObjectNode input(HookEvent event) {
    ObjectNode input = JSON.createObjectNode();
    input.put("session_id", tabId).put("transcript_path", transcript.get().map(Path::toString).orElse("")).put("cwd", projectRoot.toString())
        .put("hook_event_name", event.settingName()).put("permission_mode", settings.get().approval().label());
    return input;
  }

  /**
   * The call's arguments, plus Claude Code's {@code file_path} (absolute) beside Waymark's
   * project-relative {@code path}, so a hook written for Claude Code's Write or Edit finds the file.
   */
  private ObjectNode toolInput(JsonNode arguments) {
    ObjectNode copy = arguments != null && arguments.isObject() ? ((ObjectNode) arguments).deepCopy() : JSON.createObjectNode();
    if (copy.path("path").isTextual() && !copy.has("file_path")) {
      copy.put("file_path", projectRoot.resolve(copy.path("path").asText()).normalize().toString());
    }
    return copy;
  }

  private HookVerdict fire(HookEvent event, Optional<String> tool, ObjectNode input, Optional<Turn> turn,
      Cancellation cancellation) {
    Hooks now = hooks;
    if (now.commandsFor(event, tool).isEmpty()) {
      return HookVerdict.NONE;
    }
    HookVerdict verdict = now.fire(event, tool, input, projectRoot, turn, cancellation);
    for (String problem : verdict.problems()) {
      emit.accept(new Event.Warning(event.settingName() + ": " + problem + "; going on."));
    }
    return verdict;
  }
}
