package dev.waymark.core.hook;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One entry of an event's list in settings: the tools it applies to and its commands.
 *
 * @param matcher a regular expression that must match a whole tool name; empty or {@code *} matches
 *     every tool. Claude Code's names for the standard tools match too, so a block written for it
 *     ({@code "Write|Edit"}) works unchanged.
 */
public record HookMatcher(HookEvent event, String matcher, List<HookCommand> commands) {
  /** Claude Code's tool names, by the Waymark tool each stands for. */
  static final Map<String, String> CLAUDE_NAMES = Map.of(
      "run_shell", "Bash", "write_file", "Write", "edit_file", "Edit", "read_file", "Read", "grep", "Grep",
      "list_files", "Glob");

  public HookMatcher {
    Objects.requireNonNull(event);
    matcher = matcher == null ? "" : matcher;
    commands = List.copyOf(commands);
    pattern(matcher); // a broken expression is refused where the settings are read
  }

  /** Whether this entry applies to a call of {@code tool} (always, for an event of no tool). */
  public boolean matches(String tool) {
    if (!event.perTool() || matcher.isEmpty() || matcher.equals("*")) {
      return true;
    }
    Pattern pattern = pattern(matcher);
    String claudeName = CLAUDE_NAMES.get(tool);
    return pattern.matcher(tool).matches() || claudeName != null && pattern.matcher(claudeName).matches();
  }

  /**
   * Claude Code's name for {@code tool} when this entry names the tool by it alone ({@code Bash}, not
   * {@code run_shell}): its hooks then get that name as {@code tool_name}, as they would from Claude Code.
   */
  public Optional<String> claudeName(String tool) {
    String claudeName = CLAUDE_NAMES.get(tool);
    if (claudeName == null || !event.perTool() || matcher.isEmpty() || matcher.equals("*")) {
      return Optional.empty();
    }
    Pattern pattern = pattern(matcher);
    return pattern.matcher(claudeName).matches() && !pattern.matcher(tool).matches()
        ? Optional.of(claudeName) : Optional.empty();
  }

  private static Pattern pattern(String matcher) {
    try {
      return Pattern.compile(matcher.equals("*") ? ".*" : matcher);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("the matcher \"" + matcher + "\" is not a regular expression: "
          + e.getDescription());
    }
  }
}
