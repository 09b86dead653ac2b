package dev.waymark.core.tool;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Which tool calls run, which wait for the user's approval, and (in plan mode) which are refused. */
public enum ApprovalMode {
  /**
   * Read only: reading tools run, and so do shell commands in the sandbox on the read-only project;
   * MCP tools their server declares read-only are asked about; every other call is refused (see
   * {@code Tool.inPlan}). The model is asked for a plan.
   */
  PLAN,
  /** Edits and shell commands wait for approval (the default). */
  ASK,
  /** Edits run; shell commands wait. */
  AUTO_EDIT,
  /** Edits and sandboxed shell commands run; a command outside the sandbox waits. */
  AUTO,
  /** Everything runs. */
  YOLO;

  /**
   * False when a call of this kind is refused outright in this mode by its kind alone; a tool can let
   * a call of another kind run in plan mode where it changes nothing ({@code Tool.inPlan}).
   */
  public boolean allows(ToolKind kind) {
    return this != PLAN || kind == ToolKind.READ;
  }

  public boolean needsApproval(ToolKind kind) {
    switch (kind) {
      case READ:
        return false;
      case EDIT:
        return this == ASK || this == PLAN;
      case SANDBOXED_SHELL:
        return this != AUTO && this != YOLO;
      default:
        return this != YOLO;
    }
  }

  /** The name settings, flags and {@code /mode} use: {@code plan}, {@code ask}, {@code auto-edit}, {@code yolo}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The modes Shift+Tab goes through, in this order: every mode but {@code yolo} (which only a flag
   * or {@code /mode yolo} sets, so that no stray key lets everything run), and a mode that runs
   * shell commands unasked only when {@code sandboxed}, because only a sandbox fences them in.
   */
  public static List<ApprovalMode> cycle(boolean sandboxed) {
    List<ApprovalMode> modes = new ArrayList<>();
    for (ApprovalMode mode : values()) {
      if (mode != YOLO && (sandboxed || mode.needsApproval(ToolKind.SANDBOXED_SHELL))) {
        modes.add(mode);
      }
    }
    return modes;
  }

  /** The mode after {@code this} in the {@link #cycle}; from a mode outside it (yolo), the cycle's first. */
  public ApprovalMode next(boolean sandboxed) {
    List<ApprovalMode> modes = cycle(sandboxed);
    int at = modes.indexOf(this);
    return modes.get(at < 0 ? 0 : (at + 1) % modes.size());
  }

  /** Every mode's label, for messages: "plan, ask, auto-edit, auto or yolo". */
  public static String labels() {
    List<String> names = new ArrayList<>();
    for (ApprovalMode mode : values()) {
      names.add(mode.label());
    }
    return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
  }

  /** Parses a mode's {@link #label} (or its enum name), ignoring case. */
  public static ApprovalMode parse(String text) {
    String wanted = text == null ? "" : text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    for (ApprovalMode mode : values()) {
      if (mode.label().equals(wanted)) {
        return mode;
      }
    }
    throw new IllegalArgumentException("Unknown approval mode \"" + text + "\": use " + labels());
  }
}
