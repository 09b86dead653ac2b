package dev.waymark.core.agent;

import dev.waymark.core.model.ContextWindows;
import dev.waymark.core.tool.ApprovalMode;
import java.util.Map;
import java.util.Objects;

/**
 * How a tab runs its agent.
 *
 * @param model the model name sent to the provider
 * @param approval which tool calls wait for approval
 * @param interactive false when nobody can answer an approval (e.g. {@code waymark exec} without a
 *     terminal): calls that need one are then denied, and the model is told why
 * @param basePrompt the system prompt before the project's {@code AGENTS.md} is added
 * @param maxStepsPerTurn tool calls one turn may run before it is ended, so that a model that
 *     never stops calling tools cannot run (and spend) without end
 * @param contextWindow the model's context window in tokens, {@code 0} when unknown
 * @param compactPercent how full the window may get (in percent) before a prompt is preceded by
 *     an automatic /compact; {@code 0} never compacts by itself
 * @param contextWindows the windows the user's settings give models by name ({@code
 *     contextWindows}): where {@link #withModel} looks first
 */
public record SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt,
    int maxStepsPerTurn, long contextWindow, int compactPercent, Map<String, Integer> contextWindows) {
  public static final int DEFAULT_MAX_STEPS_PER_TURN = 200;
  public static final int DEFAULT_COMPACT_PERCENT = 85;

  public static final String DEFAULT_PROMPT = String.join("\n",
      "You are Waymark, a coding agent working in the user's project directory through tools.",
      "Read files before you change them. Prefer edit_file for small changes and write_file for new files.",
      "Paths are relative to the project root. Every change you make is checkpointed and can be undone by the user.",
      "Keep answers short and say what you changed.");

  /**
   * What the system prompt gets in plan mode: the tab refuses every tool but the reading ones, and
   * the user is asked afterwards whether to run the plan, so the answer must be the plan itself.
   */
  public static final String PLAN_PROMPT = String.join("\n",
      "# Plan mode",
      "You are in plan mode: reading tools (read_file, list_files, grep and other read-only tools) run, and so do",
      "shell commands with run_shell, in the sandbox with the project read-only: use them to look around (git log,",
      "ls, finding and listing tests), not to change anything, which fails. Any call that would change a file is",
      "refused. Investigate what you need, then answer with a concrete, numbered plan: the files to change, what to",
      "change in each, and how to check the result. Do not make the changes now. After your answer the user is",
      "asked whether to carry out the plan.");

  public SessionSettings {
    Objects.requireNonNull(model);
    Objects.requireNonNull(approval);
    basePrompt = basePrompt == null ? DEFAULT_PROMPT : basePrompt;
    if (maxStepsPerTurn < 1) {
      throw new IllegalArgumentException("maxStepsPerTurn must be at least 1");
    }
    if (contextWindow < 0 || compactPercent < 0 || compactPercent > 100) {
      throw new IllegalArgumentException("contextWindow must be positive and compactPercent from 0 to 100");
    }
    contextWindows = contextWindows == null ? Map.of() : Map.copyOf(contextWindows);
  }

  /** Without windows from settings: a model chosen later gets the known window for its name. */
  public SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt,
      int maxStepsPerTurn, long contextWindow, int compactPercent) {
    this(model, approval, interactive, basePrompt, maxStepsPerTurn, contextWindow, compactPercent, Map.of());
  }

  public SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt, int maxStepsPerTurn) {
    this(model, approval, interactive, basePrompt, maxStepsPerTurn, 0, DEFAULT_COMPACT_PERCENT);
  }

  /**
   * These settings with another model: {@code /model}. Its window is the one settings give its
   * name, else the known one for it; an unknown name has no window.
   */
  public SessionSettings withModel(String newModel) {
    long window = ContextWindows.of(newModel, contextWindows).orElse(0);
    return new SessionSettings(newModel, approval, interactive, basePrompt, maxStepsPerTurn, window, compactPercent,
        contextWindows);
  }

  /** These settings with another approval mode: Shift+Tab, {@code /mode}. */
  public SessionSettings withApproval(ApprovalMode mode) {
    return new SessionSettings(model, mode, interactive, basePrompt, maxStepsPerTurn, contextWindow, compactPercent,
        contextWindows);
  }

  public SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt) {
    this(model, approval, interactive, basePrompt, DEFAULT_MAX_STEPS_PER_TURN);
  }
}
