package dev.waymark.tui.approval;

import dev.waymark.core.permission.Permissions;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.text.CellWidth;
import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The rows of an approval waiting above the input: the call, whole and wrapped (a command is never
 * cut), its diff as far as there is room, and the step the user is at, with the keys that answer.
 */
public final class ApprovalRows {
  /** The rows, and on which of them (and at which column) the caret stands when a reason is typed. */
  public record Rendered(List<Line> lines, OptionalInt caretRow, int caretColumn) {
    static final Rendered NONE = new Rendered(List.of(), OptionalInt.empty(), 0);
  }

  private static final String REASON_MARK = " why? › ";
  private static final Map<Permissions.Scope, String> PLACES = Map.of(
      Permissions.Scope.SESSION, "this session only (all its tabs)",
      Permissions.Scope.PROJECT, "the project's settings (.waymark/settings.json)",
      Permissions.Scope.USER, "your user settings (every project)");
  /** Rows a diff needs to scroll: some of it, and the line saying where it stands. */
  private static final int MIN_SCROLLING_ROWS = 3;

  private ApprovalRows() {}

  /**
   * Lays out {@code pending} at {@code prompt}'s step in at most {@code maxRows} rows of
   * {@code width}; {@code focused}: the keys answer it (the input is empty), else typing goes to
   * the input and the prompt says how to come back.
   */
  public static Rendered render(TabState.PendingApproval pending, ApprovalPrompt prompt, boolean focused, int width,
      int maxRows) {
    List<Line> answers = answers(pending, prompt, focused, width, maxRows);
    if (answers.isEmpty()) {
      return Rendered.NONE;
    }
    int room = maxRows - answers.size();
    List<Line> title = Wrap.wrap(Line.of(new Span((pending.proposedAgain() ? "Proposed again — allow " : "Allow ")
        + pending.call().name() + ": " + pending.summary() + "?", Style.of(Tone.WARNING).bolded())), width);
    List<Line> lines = new ArrayList<>();
    if (title.size() > room) { // a command longer than the window: its start, and where to read it whole
      lines.addAll(title.subList(0, Math.max(0, room - 1)));
      lines.add(Line.of(Span.of("  … the whole call is in the chat above (PgUp)", Tone.MUTED)));
    } else {
      lines.addAll(title);
      List<Line> body = pending.preview().isBlank() ? List.of() : DiffLines.render(pending.preview(), width - 2).stream()
          .filter(l -> !l.text().startsWith("diff --waymark ")).toList();
      int bodyRoom = room - title.size();
      if (body.size() > bodyRoom && bodyRoom >= MIN_SCROLLING_ROWS) {
        scrolled(lines, body, prompt, bodyRoom);
        body = List.of();
      }
      for (int i = 0; i < body.size() && i < bodyRoom; i++) {
        lines.add(i == bodyRoom - 1 && body.size() > bodyRoom
            ? Line.of(Span.of("  … " + (body.size() - bodyRoom + 1) + " more lines", Tone.MUTED))
            : body.get(i).prefixed("  "));
      }
    }
    int first = lines.size();
    lines.addAll(answers);
    if (prompt.step() != ApprovalPrompt.Step.REASON) {
      return new Rendered(lines, OptionalInt.empty(), 0);
    }
    int caret = CellWidth.of(REASON_MARK) + CellWidth.of(prompt.reason().text().substring(0, prompt.reason().caret()));
    return new Rendered(lines, OptionalInt.of(first + 1), Math.min(width - 1, caret));
  }

  /**
   * A diff longer than its room, a page of it from where PgUp and PgDn left it, and a line saying
   * which lines show and which keys move it; a page keeps one line of the last for context.
   */
  private static void scrolled(List<Line> lines, List<Line> body, ApprovalPrompt prompt, int room) {
    int visible = room - 1;
    int top = prompt.diffTop(Math.max(1, visible - 1), body.size() - visible);
    for (int i = top; i < top + visible; i++) {
      lines.add(body.get(i).prefixed("  "));
    }
    String keys = (top > 0 ? "PgUp " : "") + (top + visible < body.size() ? "PgDn " : "");
    lines.add(Line.of(Span.of("  lines " + (top + 1) + "–" + (top + visible) + " of " + body.size() + " · " + keys
        + "scroll the diff", Tone.MUTED)));
  }

  /** The step's rows; empty when not even they fit. */
  private static List<Line> answers(TabState.PendingApproval pending, ApprovalPrompt prompt, boolean focused, int width,
      int maxRows) {
    List<Line> rows = new ArrayList<>();
    switch (prompt.step()) {
      case CHOOSE -> {
        String rule = prompt.rule().toString();
        List<String> labels = List.of("Allow once", "Allow " + rule + " from now on…", "Deny, and tell the model why…");
        boolean compact = maxRows < 2 + labels.size() + 1;
        if (compact) {
          List<Span> spans = new ArrayList<>();
          List<String> shortLabels = List.of("allow once", "allow from now on…", "deny…");
          for (int i = 0; i < shortLabels.size(); i++) {
            spans.add(choice(shortLabels.get(i), focused && prompt.choice().ordinal() == i));
            spans.add(Span.plain(" "));
          }
          rows.add(Wrap.truncate(new Line(spans), width));
        } else {
          for (int i = 0; i < labels.size(); i++) {
            boolean chosen = focused && prompt.choice().ordinal() == i;
            rows.add(Wrap.truncate(Line.of(Span.of(chosen ? " › " : "   ", Tone.ACCENT), choice(labels.get(i), chosen)), width));
          }
        }
        rows.add(Wrap.truncate(Line.of(Span.of(focused ? " ↑↓ Enter answer · Esc stops the turn · typing: a message"
            : " typing goes to the input (Enter steers); empty it to answer", Tone.MUTED)), width));
      }
      case SCOPE -> {
        rows.add(Wrap.truncate(Line.of(new Span("Allow " + prompt.rule() + " without asking, kept in:",
            Style.of(Tone.WARNING).bolded())), width));
        for (var place : prompt.scopes()) {
          boolean chosen = prompt.scope() == place;
          rows.add(Wrap.truncate(Line.of(Span.of(chosen ? " › " : "   ", Tone.ACCENT), choice(PLACES.get(place), chosen)), width));
        }
        rows.add(Wrap.truncate(Line.of(Span.of(" ↑↓ choose · Enter allow and keep the rule · Esc back", Tone.MUTED)), width));
      }
      case REASON -> {
        rows.add(Wrap.truncate(Line.of(new Span("Deny " + pending.call().name() + ". Tell the model why (optional):",
            Style.of(Tone.WARNING).bolded())), width));
        rows.add(Wrap.truncate(Line.of(Span.of(REASON_MARK, Tone.ACCENT), Span.plain(prompt.reason().text().replace('\n', ' '))),
            width));
        rows.add(Wrap.truncate(Line.of(Span.of(" Enter deny · Esc back", Tone.MUTED)), width));
      }
    }
    return rows.size() + 1 > maxRows ? List.of() : rows;
  }

  private static Span choice(String label, boolean chosen) {
    return chosen ? new Span(label, Style.of(Tone.ACCENT).reversed().bolded()) : Span.plain(label);
  }
}
