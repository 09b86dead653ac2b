package dev.waymark.core.agent;

import dev.waymark.core.model.ToolCall;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How a turn begins: with a prompt (on live, or branching from an earlier checkpoint), with a
 * /compact, by running a tool call approved after a restore proposed it again, or by a {@code !command}.
 *
 * @param branchFrom the checkpoint the prompt was sent from, when not on live
 * @param resumes the checkpoint an approved call continues
 * @param force a branch overwrites later edits that clash with where it branches from
 */
record Opening(String prompt, OptionalInt branchFrom, Optional<ToolCall> approvedCall, int resumes, boolean compact,
    boolean force, Optional<Then> then, boolean shellTurn) {
  static final Opening COMPACT = new Opening("/compact", OptionalInt.empty(), Optional.empty(), -1, true, false,
      Optional.empty());

  Opening(String prompt, OptionalInt branchFrom, Optional<ToolCall> approvedCall, int resumes, boolean compact,
      boolean force, Optional<Then> then) {
    this(prompt, branchFrom, approvedCall, resumes, compact, force, then, false);
  }

  /** An automatic /compact: why it runs, and the prompt it goes before. */
  record Then(String reason, String prompt) {}

  Opening(String prompt, OptionalInt branchFrom, Optional<ToolCall> approvedCall, int resumes, boolean compact) {
    this(prompt, branchFrom, approvedCall, resumes, compact, false, Optional.empty());
  }

  Opening(String prompt, OptionalInt branchFrom, Optional<ToolCall> approvedCall, int resumes, boolean compact,
      boolean force) {
    this(prompt, branchFrom, approvedCall, resumes, compact, force, Optional.empty());
  }

  /** A /compact that runs by itself before {@code prompt}, which the next turn then sends. */
  static Opening compactBefore(String prompt, String reason) {
    return new Opening("/compact", OptionalInt.empty(), Optional.empty(), -1, true, false,
        Optional.of(new Then(reason, prompt)));
  }

  static Opening prompt(String text) {
    return new Opening(text, OptionalInt.empty(), Optional.empty(), -1, false, false);
  }

  static Opening branch(int from, String text, boolean force) {
    return new Opening(text, OptionalInt.of(from), Optional.empty(), -1, false, force);
  }

  static Opening approved(ToolCall call, int resumes) {
    return new Opening("Approved " + call.name() + ": continue #" + resumes, OptionalInt.empty(), Optional.of(call), resumes,
        false, false);
  }

  /** The prefix of a turn the user opened by typing {@code !command}: the rest is the command. */
  static final String SHELL = "!";

  /** {@code !command}: the turn runs it and ends, the model not called. */
  static Opening shell(String command) {
    return new Opening(SHELL + command, OptionalInt.empty(), Optional.empty(), -1, false, false, Optional.empty(), true);
  }

  /** The command of a {@code !command} turn. */
  Optional<String> shellCommand() {
    return shellTurn ? Optional.of(prompt.substring(SHELL.length())) : Optional.empty();
  }

  /** Whether the user's prompt opens the turn's messages (not for a /compact, an approved call or a !command). */
  boolean sendsPrompt() {
    return approvedCall.isEmpty() && !compact && !shellTurn;
  }
}
