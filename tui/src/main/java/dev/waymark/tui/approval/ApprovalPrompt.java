package dev.waymark.tui.approval;

import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.tui.input.InputEditor;
import java.util.List;
import java.util.Optional;

/**
 * How far the user got in answering one waiting tool call: which answer is chosen, and the second
 * step an answer may need (where to keep a rule, the reason of a denial). Answers come only from
 * ↑ ↓ Enter Esc; text typed goes to the reason when denying and nowhere else here.
 */
public final class ApprovalPrompt {
  /** What the prompt shows now. */
  public enum Step { CHOOSE, SCOPE, REASON }

  /** The first step's answers, in the order shown. */
  public enum Choice { ALLOW_ONCE, ALLOW_RULE, DENY }

  /** What the user decided, for the tab to carry out. */
  public sealed interface Answer {
    record AllowOnce() implements Answer {}

    /** Allow, and keep {@code entry} in force from now on (saved to its settings file first). */
    record AllowWithRule(Permissions.Entry entry) implements Answer {}

    record Deny(String reason) implements Answer {}

    /** Esc at the first step: stop the turn, and the model is not called again. */
    record Stop() implements Answer {}
  }

  /** Where a rule may be kept, in the order shown. */
  public static final List<Permissions.Scope> SCOPES = List.of(Permissions.Scope.SESSION, Permissions.Scope.PROJECT,
      Permissions.Scope.USER);

  private final String callId;
  private final PermissionRule rule;
  private final InputEditor reason = new InputEditor();
  private Step step = Step.CHOOSE;
  private Choice choice = Choice.ALLOW_ONCE;
  private int scope;
  private final List<Permissions.Scope> scopes;

  /** @param rule what "allow …" keeps in force: the session names the tool as rules know it */
  public ApprovalPrompt(ToolCallView call, PermissionRule rule) {
    this(call, rule, SCOPES);
  }

  /** @param scopes the places offered for the rule, of {@link #SCOPES} (an untrusted project's file would be ignored) */
  public ApprovalPrompt(ToolCallView call, PermissionRule rule, List<Permissions.Scope> scopes) {
    this.callId = call.id();
    this.rule = rule;
    this.scopes = SCOPES.stream().filter(scopes::contains).toList();
  }

  /** Where this prompt offers to keep a rule, in the order shown. */
  public List<Permissions.Scope> scopes() {
    return scopes;
  }

  public String callId() {
    return callId;
  }

  /** The rule "allow …" offers: the command's prefix, the exact command, or the tool. */
  public PermissionRule rule() {
    return rule;
  }

  public Step step() {
    return step;
  }

  public Choice choice() {
    return choice;
  }

  public Permissions.Scope scope() {
    return scopes.get(scope);
  }

  /** The reason being typed at the deny step. */
  public InputEditor reason() {
    return reason;
  }

  /** The first row of the pending diff on screen; PgUp and PgDn move it by the page the last layout had room for. */
  private int diffTop;
  private int diffPage = 1;
  private int diffMax;

  /**
   * Told by the layout: {@code page} rows of the diff make a page, and its first row shown can be at
   * most {@code max}. Returns that first row, kept within them (a resize can shrink them).
   */
  public int diffTop(int page, int max) {
    diffPage = Math.max(1, page);
    diffMax = Math.max(0, max);
    diffTop = Math.max(0, Math.min(diffMax, diffTop));
    return diffTop;
  }

  /** PgUp ({@code -1}) or PgDn ({@code 1}) over the diff; false when it cannot move that way, so the chat scrolls instead. */
  public boolean scrollDiff(int pages) {
    int to = Math.max(0, Math.min(diffMax, diffTop + pages * diffPage));
    if (to == diffTop) {
      return false;
    }
    diffTop = to;
    return true;
  }

  /** ↑ or ↓: the answer or the place above or below, stopping at the ends. */
  public void move(int delta) {
    if (step == Step.CHOOSE) {
      choice = Choice.values()[Math.max(0, Math.min(Choice.values().length - 1, choice.ordinal() + delta))];
    } else if (step == Step.SCOPE) {
      scope = Math.max(0, Math.min(scopes.size() - 1, scope + delta));
    }
  }

  /** Enter: an answer, or empty when it opened a second step. */
  public Optional<Answer> confirm() {
    switch (step) {
      case CHOOSE -> {
        switch (choice) {
          case ALLOW_ONCE -> {
            return Optional.of(new Answer.AllowOnce());
          }
          case ALLOW_RULE -> step = Step.SCOPE;
          case DENY -> step = Step.REASON;
        }
        return Optional.empty();
      }
      case SCOPE -> {
        return Optional.of(new Answer.AllowWithRule(new Permissions.Entry(scope(), false, rule)));
      }
      default -> {
        return Optional.of(new Answer.Deny(reason.text().strip()));
      }
    }
  }

  /** Esc: back from a second step (what was typed there kept), or from the first, stop the turn. */
  public Optional<Answer> escape() {
    if (step == Step.CHOOSE) {
      return Optional.of(new Answer.Stop());
    }
    step = Step.CHOOSE;
    return Optional.empty();
  }

  /** Back to the first step, as when the user started typing a message instead. */
  public void reset() {
    step = Step.CHOOSE;
  }
}
