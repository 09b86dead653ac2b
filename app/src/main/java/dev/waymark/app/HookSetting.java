package dev.waymark.app;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.waymark.core.hook.HookCommand;
import dev.waymark.core.hook.HookEvent;
import dev.waymark.core.hook.HookMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of the settings' {@code "hooks"} block, in Claude Code's format:
 * {@code "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}.
 * Fields Claude Code has and Waymark does not use are ignored, so a block copied from it is read as it is.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record HookSetting(String matcher, List<Command> hooks) {
  HookSetting {
    hooks = hooks == null ? List.of() : List.copyOf(hooks);
  }

  /** {@code timeout} in seconds; a {@code type} other than {@code command} (Claude Code's {@code prompt}) is not run. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Command(String type, String command, Integer timeout) {
    boolean runs() {
      return (type == null || type.equals("command")) && command != null && !command.isBlank();
    }
  }

  /** Why {@code block} cannot be run as it is written; empty when it can. */
  static Optional<String> problem(Map<String, List<HookSetting>> block) {
    for (var entry : block.entrySet()) {
      if (HookEvent.named(entry.getKey()).isEmpty()) {
        return Optional.of("hooks: unknown event \"" + entry.getKey() + "\" (known: "
            + String.join(", ", Arrays.stream(HookEvent.values()).map(HookEvent::settingName).toList()) + ")");
      }
      for (HookSetting setting : entry.getValue()) {
        try {
          setting.matchers(HookEvent.named(entry.getKey()).get(), "");
        } catch (IllegalArgumentException e) {
          return Optional.of("hooks." + entry.getKey() + ": " + e.getMessage());
        }
      }
    }
    return Optional.empty();
  }

  /** The hooks of {@code block} that run, each tagged with {@code source}, in the order written. */
  static List<HookMatcher> matchers(Map<String, List<HookSetting>> block, String source) {
    List<HookMatcher> all = new ArrayList<>();
    for (var entry : block.entrySet()) {
      HookEvent.named(entry.getKey()).ifPresent(event -> entry.getValue().forEach(s -> all.add(s.matchers(event, source))));
    }
    return all;
  }

  private HookMatcher matchers(HookEvent event, String source) {
    List<HookCommand> commands = hooks.stream().filter(Command::runs)
        .map(c -> new HookCommand(c.command(), c.timeout() == null ? null : Duration.ofSeconds(c.timeout()), source)).toList();
    return new HookMatcher(event, matcher, commands);
  }

  /** A one-line list of what {@code block} would run, for the warning that an untrusted project's hooks do not run. */
  static String listed(Map<String, List<HookSetting>> block) {
    List<String> said = new ArrayList<>();
    block.forEach((event, settings) -> settings.forEach(s -> s.hooks().stream().filter(Command::runs)
        .forEach(c -> said.add(event + (s.matcher() == null || s.matcher().isEmpty() ? "" : " " + s.matcher()) + ": "
            + c.command()))));
    return String.join("; ", said);
  }
}
