package dev.waymark.tui.command;

import dev.waymark.core.tool.ApprovalMode;
import java.util.ArrayList;
import java.util.List;

/** What each approval mode means, in the words the footer, Shift+Tab's hint, /mode and "run this plan?" use. */
public final class ModeText {
  private ModeText() {}

  /** One line: the mode and what it lets run. */
  public static String describe(ApprovalMode mode) {
    return switch (mode) {
      case PLAN -> "plan: reading tools and sandboxed read-only commands run; the model answers with a plan, then you are asked whether to run it";
      case ASK -> "ask: edits and shell commands wait for your approval";
      case AUTO_EDIT -> "auto-edit: edits run, shell commands wait for your approval";
      case AUTO -> "auto: edits and shell commands in the sandbox run; a command outside it waits for your approval";
      case YOLO -> "yolo: every tool call runs without asking";
      default -> mode.label();
    };
  }

  /** The cycle as Shift+Tab goes through it: "plan → ask → auto-edit". */
  public static String cycle(boolean sandboxed) {
    List<String> names = new ArrayList<>();
    ApprovalMode.cycle(sandboxed).forEach(m -> names.add(m.label()));
    return String.join(" → ", names);
  }

  /**
   * The modes "run this plan?" offers, best first: auto-edit (what a reviewed plan is usually run
   * in), then the others of the cycle but plan; never yolo.
   */
  public static List<ApprovalMode> toRunAPlan(boolean sandboxed) {
    List<ApprovalMode> modes = new ArrayList<>(List.of(ApprovalMode.AUTO_EDIT));
    for (ApprovalMode m : ApprovalMode.cycle(sandboxed)) {
      if (m != ApprovalMode.PLAN && !modes.contains(m)) {
        modes.add(m);
      }
    }
    return modes;
  }
}
