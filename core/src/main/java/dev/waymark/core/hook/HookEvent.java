package dev.waymark.core.hook;

import java.util.Arrays;
import java.util.Optional;

/** The events a hook can run at, by the names Claude Code's settings give them. */
public enum HookEvent {
  PRE_TOOL_USE("PreToolUse", true),
  POST_TOOL_USE("PostToolUse", true),
  USER_PROMPT_SUBMIT("UserPromptSubmit", false),
  SESSION_START("SessionStart", false),
  SESSION_END("SessionEnd", false),
  STOP("Stop", false),
  PRE_COMPACT("PreCompact", false),
  NOTIFICATION("Notification", false);

  private final String settingName;
  private final boolean perTool;

  HookEvent(String settingName, boolean perTool) {
    this.settingName = settingName;
    this.perTool = perTool;
  }

  /** The name in settings and in the hook's {@code hook_event_name}. */
  public String settingName() {
    return settingName;
  }

  /** Whether a matcher picks tools for it; for the others the matcher is ignored, as in Claude Code. */
  public boolean perTool() {
    return perTool;
  }

  public static Optional<HookEvent> named(String name) {
    return Arrays.stream(values()).filter(e -> e.settingName.equals(name)).findFirst();
  }
}
