package dev.waymark.core.protocol;

import java.util.Locale;

/**
 * What sort of failure an {@link Event.Error} tells of: front ends and scripts branch on this (as
 * {@link #code()} in {@code exec --json}), never on the message, whose words may change.
 */
public enum ErrorKind {
  // the first nine are named as CheckpointException's kinds are, so that one maps onto the other by name
  /** No such checkpoint, save, tab, session or path. */
  NOT_FOUND,
  /** Already so, or nothing to act on: nothing to undo, the files already are as asked. */
  NOTHING_TO_DO,
  /** Something else holds it: a running turn, another process's lock. */
  BUSY,
  /** The project's files changed in a way Waymark will not overwrite. */
  CLASH,
  /** Not allowed or not valid: a path outside the project, a bad name, a refused range. */
  REFUSED,
  /** What the store should hold is missing or damaged. */
  LOST,
  /** Reading or writing the store or the project failed. */
  STORE_IO,
  /** Stopped before it could end. */
  INTERRUPTED,
  /** This machine or this version cannot do it. */
  UNSUPPORTED,
  /** No model can be asked: none configured, or its key is missing. */
  MODEL_UNAVAILABLE,
  /** The model call failed (network, server, authentication, rate limit, a refused request). */
  MODEL_FAILED,
  /** The conversation no longer fits the model's context window. */
  CONTEXT_TOO_LONG,
  /** A turn reached its limit of tool calls. */
  STEP_LIMIT,
  /** The user, a rule of theirs or a hook of theirs said no to a tool call. */
  DENIED,
  /** A tool did not get done what it was asked: a command that failed, a page or a server that did not answer. */
  TOOL_FAILED,
  /** A tool call, a page or a server took longer than its time allowed. */
  TIMED_OUT,
  /** A tool's changes to the project could not be applied or recorded: undo would not restore them. */
  NOT_RECORDED,
  /** A fault in Waymark itself; the log has the stack trace. */
  INTERNAL;

  /** The kind as {@code exec --json} and the session file write it: {@code not_found}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind {@code code} names, or {@link #INTERNAL} for one this version does not know. */
  public static ErrorKind ofCode(String code) {
    for (ErrorKind kind : values()) {
      if (kind.code().equals(code)) {
        return kind;
      }
    }
    return INTERNAL;
  }
}
