package dev.waymark.core.agent;

import dev.waymark.core.tool.ApprovalMode;
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
 */
public record SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt,
    int maxStepsPerTurn, long contextWindow, int compactPercent) {
  public static final int DEFAULT_MAX_STEPS_PER_TURN = 200;
  public static final int DEFAULT_COMPACT_PERCENT = 85;

  public static final String DEFAULT_PROMPT = String.join("\n",
      "You are Waymark, a coding agent working in the user's project directory through tools.",
      "Read files before you change them. Prefer edit_file for small changes and write_file for new files.",
      "Paths are relative to the project root. Every change you make is checkpointed and can be undone by the user.",
      "Keep answers short and say what you changed.");

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
  }

  public SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt, int maxStepsPerTurn) {
    this(model, approval, interactive, basePrompt, maxStepsPerTurn, 0, DEFAULT_COMPACT_PERCENT);
  }

  public SessionSettings(String model, ApprovalMode approval, boolean interactive, String basePrompt) {
    this(model, approval, interactive, basePrompt, DEFAULT_MAX_STEPS_PER_TURN);
  }
}
