package dev.waymark.tui.frame;

import com.googlecode.lanterna.TerminalPosition;
import com.googlecode.lanterna.TerminalSize;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.approval.ApprovalPrompt;
import dev.waymark.tui.approval.ApprovalRows;
import dev.waymark.tui.chat.ChatView;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.command.ModeText;
import dev.waymark.tui.input.InputLayout;
import dev.waymark.tui.input.MentionFinder;
import dev.waymark.tui.screen.Footer;
import dev.waymark.tui.screen.Overlay;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.screen.Rail;
import dev.waymark.tui.screen.TabBar;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.tab.Tabs;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Lays out one screen from the tabs and what is drawn over them: the tab bar on top, the footer
 * at the bottom, then bottom-up the input, an approval waiting, the steering queue and a hint,
 * and the chat with its rail in what is left. Pure: the same state and size give the same frame.
 */
public final class FrameLayout {
  public static final int MIN_COLUMNS = 60;
  public static final int MIN_ROWS = 15;
  private static final int MAX_INPUT_ROWS = 8;

  /**
   * What the footer names: the model and the approval mode; {@code sandboxed}: "run this plan?"
   * may offer a mode that runs shell commands unasked.
   */
  public record Labels(String model, String approval, boolean sandboxed) {
    public Labels(String model, String approval) {
      this(model, approval, false);
    }
  }

  private final List<Frame.Row> rows = new ArrayList<>();

  private FrameLayout() {}

  /** The frame for {@code size}; {@code spinner} is the spinner's current glyph, {@code now} times the turn. */
  public static Frame layout(Tabs tabs, Layers layers, Labels labels, TerminalSize size, String spinner, Instant now) {
    return new FrameLayout().lay(tabs, layers, labels, size, spinner, now);
  }

  private void put(int column, int row, Line line, int width) {
    rows.add(new Frame.Row(column, row, line, width));
  }

  private Frame lay(Tabs tabs, Layers layers, Labels labels, TerminalSize size, String spinner, Instant now) {
    int width = size.getColumns();
    int height = size.getRows();
    if (width < MIN_COLUMNS || height < MIN_ROWS) {
      Line message = Line.of(Span.of("Waymark needs at least " + MIN_COLUMNS + "×" + MIN_ROWS + " (this is " + width + "×"
          + height + "). Enlarge the window; until then typing is ignored. Esc interrupts, Ctrl+D quits.", Tone.WARNING));
      List<Line> lines = Wrap.wrap(message, Math.max(1, width));
      for (int r = 0; r < lines.size() && r < height; r++) {
        put(0, r, lines.get(r), width);
      }
      return new Frame(size, rows, Optional.empty(), 1, 0, true);
    }
    TabController tab = tabs.current();
    TabState state = tab.state();

    List<TabBar.Label> tabLabels = new ArrayList<>();
    List<Integer> waitingElsewhere = new ArrayList<>();
    for (TabController t : tabs.open()) {
      TabState s = t.state();
      boolean awaiting = s.pendingApproval().isPresent();
      // a subagent's tab is marked as its parent's: ↳ and the parent's number
      String title = t.tab().subagentOf().map(p -> "↳" + parentNumber(tabs, p) + " " + s.title()).orElse(s.title());
      tabLabels.add(new TabBar.Label(title, t == tab, s.running(), s.unseenFinish(), awaiting, t.isolationMark()));
      if (awaiting && t != tab) {
        waitingElsewhere.add(tabLabels.size());
      }
    }
    put(0, 0, TabBar.render(tabLabels, width, spinner), width);
    put(0, height - 1, Footer.render(state, labels.model(), labels.approval(), width, now, spinner, waitingElsewhere), width);

    // bottom-up: input, approval, steering, hint, then the chat takes what is left
    int bottom = height - 1;
    int maxInputRows = Math.min(MAX_INPUT_ROWS, Math.max(1, (height - 6) / 3));
    String text = tab.editor().text();
    InputLayout.Layout input = InputLayout.layout(text, tab.editor().caret(), width - 2, maxInputRows);
    int inputRows = Math.max(1, Math.min(input.rows().size() - input.firstRow(), maxInputRows));
    int inputTop = bottom - inputRows;
    Tone ruleTone = state.viewed().isPresent() ? Tone.VIEWED : Tone.MUTED;
    put(0, inputTop - 1, Line.of(Span.of("─".repeat(width), ruleTone)), width);
    if (input.rows().size() > inputRows) { // a long paste: say how much is there beyond the rows shown
      long lines = text.chars().filter(c -> c == '\n').count() + 1;
      String amount = " " + lines + " lines, " + (text.length() + 1023) / 1024 + " KB in the input ─";
      put(Math.max(0, width - amount.length()), inputTop - 1, Line.of(Span.of(amount, ruleTone)), width);
    }
    for (int r = 0; r < inputRows; r++) {
      int index = input.firstRow() + r;
      String row = index < input.rows().size() ? input.rows().get(index) : "";
      Span typed = tab.editor().selected() ? new Span(row, Style.PLAIN.reversed()) : Span.plain(row);
      put(0, inputTop + r, Line.of(Span.of(index == 0 ? "› " : "  ", Tone.USER), typed), width);
    }
    if (tab.editor().isEmpty()) {
      put(2, inputTop, Wrap.truncate(Line.of(Span.of(placeholder(state), Tone.MUTED)), width - 2), width - 2);
    }
    int above = inputTop - 1;
    List<Line> menu = layers.modal() ? List.of() : layers.menu().rows(text, width, Math.max(0, above - 1 - 3));
    above -= menu.size();
    for (int r = 0; r < menu.size(); r++) {
      put(0, above + r, menu.get(r), width);
    }
    List<Line> plan = menu.isEmpty() ? planRows(state, labels.sandboxed(), tab.editor().isEmpty(), width,
        Math.max(0, above - 1 - 3)) : List.of();
    above -= plan.size();
    for (int r = 0; r < plan.size(); r++) {
      put(0, above + r, plan.get(r), width);
    }
    Optional<ApprovalPrompt> prompt = tab.approvalPrompt();
    ApprovalRows.Rendered approval = prompt.isPresent() && state.pendingApproval().isPresent()
        ? ApprovalRows.render(state.pendingApproval().get(), prompt.get(), tab.editor().isEmpty(), width,
            Math.max(0, above - 1 - 3))
        : new ApprovalRows.Rendered(List.of(), OptionalInt.empty(), 0);
    above -= approval.lines().size();
    for (int r = 0; r < approval.lines().size(); r++) {
      put(0, above + r, approval.lines().get(r), width);
    }
    int approvalTop = above;
    List<Line> steering = steeringRows(state, width, above - 2); // the tab bar and a row of chat stay
    above -= steering.size();
    for (int r = 0; r < steering.size(); r++) {
      put(0, above + r, steering.get(r), width);
    }
    List<Line> finder = finderRows(layers, tab, width, above - 3);
    above -= finder.size();
    for (int r = 0; r < finder.size(); r++) {
      put(0, above + r, finder.get(r), width);
    }
    if (!layers.hint().isEmpty() && above - 1 > 1) {
      above -= 1;
      put(0, above, Wrap.truncate(Line.of(Span.of(layers.hint(), Tone.WARNING)), width), width);
    }

    if (layers.confirm() != null) { // above the input, like an approval: the chat it is about stays readable
      List<Line> question = Wrap.wrap(Line.of(new Span(layers.confirm().question(), Style.of(Tone.WARNING).bolded())), width);
      int shown = Math.min(question.size(), Math.max(1, above - 2));
      above -= shown;
      for (int r = 0; r < shown; r++) {
        put(0, above + r, question.get(r), width);
      }
    }
    int chatTop = 1;
    int chatHeight = Math.max(0, above - chatTop);
    int chatWidth = Math.max(1, width - Rail.WIDTH - 1);
    if (layers.overlay() != null) {
      overlay(layers.overlay(), chatTop, chatHeight, width);
    } else if (layers.picker() != null) {
      picker(layers.picker(), chatTop, chatHeight, width);
    } else {
      chat(tab, chatTop, chatWidth, chatHeight, width, spinner);
    }

    boolean modal = layers.modal() || (state.pendingApproval().isPresent() && tab.editor().isEmpty());
    Optional<TerminalPosition> cursor = modal ? Optional.empty() : Optional.of(new TerminalPosition(
        Math.min(width - 1, 2 + input.caretColumn()), inputTop + (input.caretRow() - input.firstRow())));
    if (!layers.modal() && approval.caretRow().isPresent()) { // a denial's reason being typed
      cursor = Optional.of(new TerminalPosition(approval.caretColumn(), approvalTop + approval.caretRow().getAsInt()));
    }
    return new Frame(size, rows, cursor, chatWidth, chatHeight, false);
  }

  /** The number the bar gives the open tab {@code tabId}; empty when it is not open. */
  private static String parentNumber(Tabs tabs, String tabId) {
    List<TabController> open = tabs.open();
    for (int i = 0; i < open.size(); i++) {
      if (open.get(i).tab().tabId().equals(tabId)) {
        return String.valueOf(i + 1);
      }
    }
    return "";
  }

  private static String placeholder(TabState state) {
    if (state.pendingApproval().isPresent()) {
      return "Answer above with ↑↓ Enter (Esc stops the turn), or type a message…";
    }
    if (!state.running() && state.planToRun() && state.viewed().isEmpty()) {
      return "Or type what to change in the plan…";
    }
    if (!state.running()) {
      return state.viewed().isPresent() ? "Send a message to branch from #" + state.viewed().get() + "…"
          : "Ask for a change, or type / for commands…";
    }
    return state.viewed().isPresent() ? "A turn is running: Enter steers it and ends viewing; Esc ends viewing, Ctrl+C interrupts…"
        : "Type to steer the running turn (Enter), Esc or Ctrl+C to interrupt…";
  }

  private void chat(TabController tab, int top, int chatWidth, int chatHeight, int width, String spinner) {
    List<Line> chat = ChatView.render(tab.state(), tab.scroll(), chatWidth, chatHeight);
    for (int r = 0; r < chat.size(); r++) {
      put(0, top + r, chat.get(r), chatWidth);
    }
    if (!tab.scroll().following() && chatHeight > 0) {
      put(Math.max(0, chatWidth - 14), top + chatHeight - 1, Line.of(Span.of(" ↓ more (PgDn) ", Tone.ACCENT)), 15);
    }
    List<Line> rail = Rail.render(tab.state(), chatHeight, spinner);
    for (int r = 0; r < rail.size(); r++) {
      put(width - Rail.WIDTH, top + r, rail.get(r), Rail.WIDTH);
    }
  }

  private void overlay(Overlay overlay, int top, int height, int width) {
    if (height <= 0) {
      return;
    }
    put(0, top, Wrap.truncate(Line.of(new Span(" " + overlay.title() + " ", Style.of(Tone.ACCENT).reversed()),
        Span.of("  ↑↓ PgUp PgDn scroll · Esc/q close", Tone.MUTED)), width), width);
    List<Line> lines = overlay.rows(width);
    int page = height - 1;
    overlay.scroll(0, page); // a resize can leave it scrolled past its end
    for (int r = 0; r < page && overlay.top() + r < lines.size(); r++) {
      put(0, top + 1 + r, lines.get(overlay.top() + r), width);
    }
  }

  private void picker(Picker picker, int top, int height, int width) {
    if (height <= 1) {
      return;
    }
    Line head = picker.searchable()
        ? Line.of(new Span(" " + picker.title() + " ", Style.of(Tone.ACCENT).reversed()), Span.of("  search: ", Tone.MUTED),
            new Span(picker.query() + "▏", Style.PLAIN), Span.of("  " + picker.matching() + " of " + picker.size()
                + " · type to filter · ↑↓ Enter · Esc", Tone.MUTED))
        : Line.of(new Span(" " + picker.title() + " ", Style.of(Tone.ACCENT).reversed()), Span.of("  ↑↓ Enter · Esc", Tone.MUTED));
    put(0, top, Wrap.truncate(head, width), width);
    List<Line> lines = picker.rows(width, height - 1);
    for (int r = 0; r < lines.size(); r++) {
      put(0, top + 1 + r, lines.get(r), width);
    }
  }

  /** "Run this plan?" under a plan turn that ended: the modes to run it in, and keeping on planning. */
  private static List<Line> planRows(TabState state, boolean sandboxed, boolean inputEmpty, int width, int maxRows) {
    List<Line> lines = new ArrayList<>();
    if (!state.planToRun() || state.running() || state.pendingApproval().isPresent()) {
      return lines;
    }
    List<String> answers = new ArrayList<>();
    for (ApprovalMode mode : ModeText.toRunAPlan(sandboxed)) {
      answers.add("yes, in " + ModeText.describe(mode));
    }
    answers.add("no, keep planning");
    if (maxRows < answers.size() + 2) {
      return lines;
    }
    lines.add(Line.of(new Span(" Run this plan?", Style.of(Tone.ACCENT).bolded()),
        Span.of(inputEmpty ? "  ↑↓ choose · Enter · Esc keeps planning" : "  Enter sends your message instead", Tone.MUTED)));
    for (int i = 0; i < answers.size(); i++) {
      boolean on = inputEmpty && i == state.planChoice();
      lines.add(Wrap.truncate(Line.of(new Span(on ? " ▸ " : "   ", Style.of(Tone.ACCENT)),
          new Span(answers.get(i), on ? Style.PLAIN.reversed() : Style.PLAIN)), width));
    }
    return lines;
  }

  /** The {@code @} finder's matches, above the input, the selected one marked. */
  private static List<Line> finderRows(Layers layers, TabController tab, int width, int maxRows) {
    MentionFinder finder = layers.mentions();
    List<Line> lines = new ArrayList<>();
    if (finder == null || layers.modal() || maxRows < 2 || !finder.open(tab.editor())) {
      return lines;
    }
    List<String> matches = finder.shown(tab.editor());
    int rows = Math.min(Math.min(MentionFinder.SHOWN, maxRows - 1), matches.size());
    int top = Math.max(0, Math.min(finder.selected() - rows + 1, matches.size() - rows));
    lines.add(Wrap.truncate(Line.of(Span.of(" @ files" + (finder.offersResources() ? " and MCP resources" : "") + (finder.indexing() ? " (indexing…)" : ""), Tone.ACCENT),
        Span.of("  ↑↓ choose · Tab/Enter insert · Esc close", Tone.MUTED)), width));
    for (int i = top; i < top + rows; i++) {
      boolean on = i == finder.selected();
      lines.add(Wrap.truncate(Line.of(new Span(on ? " ▸ " : "   ", Style.of(Tone.ACCENT)),
          new Span(matches.get(i), on ? Style.PLAIN.reversed() : Style.PLAIN)), width));
    }
    return lines;
  }

  private static List<Line> steeringRows(TabState state, int width, int maxRows) {
    List<String> queue = state.steeringQueue();
    List<Line> lines = new ArrayList<>();
    if (maxRows <= 0) {
      return lines;
    }
    int shown = Math.min(3, queue.size());
    shown = queue.size() > shown || shown > maxRows ? Math.min(shown, maxRows - 1) : shown; // a row for "+N more"
    for (int i = 0; i < shown; i++) {
      lines.add(Wrap.truncate(Line.of(Span.of(" ⏳ queued: ", Tone.MUTED), Span.of(queue.get(i).replace('\n', ' '), Tone.USER)),
          width));
    }
    if (queue.size() > shown) {
      lines.add(Line.of(Span.of("    +" + (queue.size() - shown) + " more queued", Tone.MUTED)));
    }
    return lines;
  }
}
