package dev.waymark.tui.chat;

import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Markdown;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** The kinds of {@link Block} a chat holds. */
public final class Blocks {
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm");
  static final int PREVIEW_ROWS = 12;
  /** Files of a shell command listed while its block is folded. */
  static final int FOLDED_FILES = 4;
  /** Lines of a running command's output shown while it runs, folded: the last ones, as a terminal would. */
  static final int LIVE_ROWS = 5;
  /** Characters of a running command's output kept for the chat: the latest (its result holds the output the model gets). */
  static final int LIVE_CHARS = 256 * 1024;
  /** Rows of a result or diff shown once expanded, so one huge output cannot swamp the chat. */
  static final int EXPANDED_ROWS = 400;

  private Blocks() {}

  /** The prompt that opened a checkpoint, under a rule naming the checkpoint. */
  public static final class Prompt extends Block {
    private final String text;
    private final Instant at;

    public Prompt(int checkpoint, String text, Instant at) {
      super(checkpoint);
      this.text = text;
      this.at = at;
    }

    public String text() {
      return text;
    }

    public Instant at() {
      return at;
    }

    @Override
    protected List<Line> layout(int width) {
      List<Line> rows = new ArrayList<>();
      String label = " #" + checkpoint() + " · " + LocalTime.ofInstant(at, ZoneId.systemDefault()).format(CLOCK) + " ";
      int rule = Math.max(0, width - label.length() - 2);
      rows.add(Line.of(Span.of("──", Tone.MUTED), Span.of(label, Tone.MUTED), Span.of("─".repeat(rule), Tone.MUTED)));
      Style you = Style.of(Tone.USER).bolded();
      for (String paragraph : text.split("\n", -1)) {
        rows.addAll(Wrap.wrap(Line.of(Span.of("› ", Tone.USER), new Span(Wrap.expandTabs(paragraph), you)), width,
            Line.plain("  ")));
      }
      return rows;
    }
  }

  /** The model's streamed answer, rendered as Markdown as it grows. */
  public static final class Answer extends Block {
    private final StringBuilder text = new StringBuilder();

    public Answer(int checkpoint) {
      super(checkpoint);
    }

    public void append(String delta) {
      text.append(delta);
      changed();
    }

    public boolean isEmpty() {
      return text.toString().isBlank();
    }

    /** The answer as the model wrote it, Markdown and all. */
    public String text() {
      return text.toString();
    }

    @Override
    protected List<Line> layout(int width) {
      return Markdown.render(text.toString(), width);
    }
  }

  /**
   * A reasoning model's thinking before its answer: dimmed, and folded to one line unless the tab
   * shows reasoning ({@code /reasoning}).
   */
  public static final class Reasoning extends Block {
    private final StringBuilder text = new StringBuilder();
    private boolean expanded;

    public Reasoning(int checkpoint, boolean expanded) {
      super(checkpoint);
      this.expanded = expanded;
    }

    public void append(String delta) {
      text.append(delta);
      changed();
    }

    public void expand(boolean show) {
      if (expanded != show) {
        expanded = show;
        changed();
      }
    }

    @Override
    protected List<Line> layout(int width) {
      String body = text.toString().strip();
      long lines = body.lines().count();
      if (!expanded) {
        return Wrap.wrap(Line.of(Span.of("▸ thought · " + lines + (lines == 1 ? " line" : " lines")
            + " · /reasoning shows it", Tone.MUTED)), width, Line.plain("  "));
      }
      List<Line> rows = new ArrayList<>();
      rows.add(Line.of(Span.of("▾ thought", Tone.MUTED)));
      for (String paragraph : body.split("\n", -1)) {
        rows.addAll(Wrap.wrap(Line.of(Span.of("  " + Wrap.expandTabs(paragraph), Tone.MUTED)), width, Line.plain("  ")));
      }
      return rows;
    }
  }

  /** A tool call: name and target, its diff or command, and once finished a result summary. */
  public static final class ToolUse extends Block {
    private final String id;
    private final String name;
    private final String summary;
    private final String preview;
    private boolean awaitingApproval;
    private String result;
    private boolean failed;
    private boolean expanded;
    /** What the running call printed so far; dropped when its result comes. */
    private final StringBuilder live = new StringBuilder();

    public ToolUse(int checkpoint, String id, String name, String summary, String preview, boolean awaitingApproval) {
      super(checkpoint);
      this.id = id;
      this.name = name;
      this.summary = summary;
      this.preview = preview;
      this.awaitingApproval = awaitingApproval;
    }

    public String id() {
      return id;
    }

    public String summary() {
      return summary;
    }

    public String preview() {
      return preview;
    }

    public String name() {
      return name;
    }

    public boolean finished() {
      return result != null;
    }

    /** What the call returned, once finished; empty before. */
    public String result() {
      return result == null ? "" : result;
    }

    public boolean failed() {
      return failed;
    }

    /** More of what the running call prints. */
    public void live(String text) {
      if (result != null) {
        return;
      }
      live.append(text);
      if (live.length() > LIVE_CHARS) {
        live.delete(0, live.indexOf("\n", live.length() - LIVE_CHARS) + 1);
      }
      changed();
    }

    public void finish(String resultText, boolean isError) {
      live.setLength(0);
      live.trimToSize();
      result = resultText;
      failed = isError;
      awaitingApproval = false;
      changed();
    }

    public void stopAwaiting() {
      awaitingApproval = false;
      changed();
    }

    /** Expanded, the whole diff, command output and list of changed files show; folded, a preview. */
    public void expand(boolean on) {
      if (expanded != on) {
        expanded = on;
        changed();
      }
    }

    @Override
    protected List<Line> layout(int width) {
      List<Line> rows = new ArrayList<>();
      Tone mark = result == null ? Tone.ACCENT : failed ? Tone.ERROR : Tone.ADDED;
      String glyph = result == null ? (awaitingApproval ? "? " : "● ") : failed ? "✗ " : "✓ ";
      rows.addAll(Wrap.wrap(Line.of(Span.of(glyph, mark), new Span(name, Style.of(Tone.ACCENT).bolded()),
          Span.plain(" " + summary)), width, Line.plain("  ")));
      if (!preview.isBlank()) {
        for (Line l : DiffLines.compact(preview, Math.max(1, width - 2), expanded ? EXPANDED_ROWS : PREVIEW_ROWS,
            expanded ? wholeOutputHint() : "(Ctrl+O expands)")) {
          rows.add(l.prefixed("  "));
        }
      }
      if (awaitingApproval) {
        rows.add(Line.of(Span.of("  waiting for your approval", Tone.WARNING)));
      }
      if (result == null && live.length() > 0) {
        liveOutput(rows, width);
      }
      if (result != null && (name.equals("run_shell") || isMcpTool(name))) {
        shellResult(rows, width);
      } else if (result != null && expanded) {
        expandedLines(rows, width, result.strip().lines().toList(), failed ? Tone.ERROR : Tone.MUTED);
      } else if (result != null) {
        String first = firstLine(result);
        rows.addAll(Wrap.wrap(Line.of(Span.of("  ⎿ ", Tone.MUTED), Span.of(first, failed ? Tone.ERROR : Tone.MUTED)),
            width, Line.plain("    ")));
      }
      return rows;
    }

    /** The running command's last lines as a terminal shows them (all of them expanded), each cut at the width. */
    private void liveOutput(List<Line> rows, int width) {
      List<String> lines = new ArrayList<>();
      for (String line : live.toString().split("\n")) {
        lines.add(asShown(line));
      }
      int from = expanded ? Math.max(0, lines.size() - EXPANDED_ROWS) : Math.max(0, lines.size() - LIVE_ROWS);
      if (from > 0) {
        rows.add(Line.of(Span.of("  ⎿ … " + from + " more line" + (from == 1 ? "" : "s")
            + (expanded ? " not shown" : " (Ctrl+O shows them)"), Tone.MUTED)));
      }
      for (int i = from; i < lines.size(); i++) {
        rows.add(Wrap.truncate(Line.of(Span.of(i == 0 ? "  ⎿ " : "    ", Tone.MUTED), Span.of(lines.get(i), Tone.MUTED)),
            width));
      }
    }

    /**
     * A line as a terminal would leave it: what follows its last carriage return (a progress bar
     * redrawn in place), tabs expanded, other control characters and escape sequences left out.
     */
    static String asShown(String line) {
      String text = line.substring(line.lastIndexOf('\r', line.length() - 2) + 1).replace("\r", "");
      text = text.replaceAll("\u001b\\[[0-9;?]*[ -/]*[@-~]", "");
      return Wrap.expandTabs(text).replaceAll("\\p{Cntrl}", "");
    }

    /** An MCP server's tool ({@code SERVER__tool}): its files are listed like a shell command's. */
    private static boolean isMcpTool(String name) {
      return name.contains("__");
    }

    /** The command's output (its first line, or all of it expanded), then the files it changed. */
    private void shellResult(List<Line> rows, int width) {
      ShellResult shell = ShellResult.parse(result);
      Tone tone = failed ? Tone.ERROR : Tone.MUTED;
      if (expanded) {
        expandedLines(rows, width, shell.output(), tone);
        for (String status : shell.status()) {
          rows.add(Wrap.truncate(Line.of(Span.of("    " + status, Tone.MUTED)), width));
        }
      } else {
        String folded = firstLine(String.join("\n", shell.output()));
        if (!shell.succeeded()) {
          // how it ended is worth a glance; a plain exit 0 is not, and is never counted as a line of output
          folded += " · " + String.join(" ", shell.status()).replaceAll("^\\[|]$", "").replace("] [", " · ");
        }
        rows.addAll(Wrap.wrap(Line.of(Span.of("  ⎿ ", Tone.MUTED), Span.of(folded, tone)), width, Line.plain("    ")));
      }
      files(rows, width, shell.changed(), "changed", Tone.ACCENT);
      files(rows, width, shell.notRecorded(), "changed, not recorded (undo will not restore)", Tone.WARNING);
    }

    /** The lines of a result, at most {@link #EXPANDED_ROWS}, then how many more and where they all are. */
    private void expandedLines(List<Line> rows, int width, List<String> lines, Tone tone) {
      int shown = Math.min(lines.size(), EXPANDED_ROWS);
      for (int i = 0; i < shown; i++) {
        rows.addAll(Wrap.wrap(Line.of(Span.of(i == 0 ? "  ⎿ " : "    ", Tone.MUTED), Span.of(Wrap.expandTabs(lines.get(i)), tone)),
            width, Line.plain("    ")));
      }
      if (shown < lines.size()) {
        int more = lines.size() - shown;
        rows.addAll(Wrap.wrap(Line.of(Span.of("    … " + more + " more line" + (more == 1 ? "" : "s") + " " + wholeOutputHint(),
            Tone.WARNING)), width, Line.plain("      ")));
      }
    }

    private String wholeOutputHint() {
      return "not shown here: /output " + checkpoint() + " shows the whole output";
    }

    /**
     * Every row of the call, nothing cut: its command or whole diff, then its whole result, for the
     * {@code /output} panel.
     */
    public List<Line> whole(int width) {
      List<Line> rows = new ArrayList<>();
      rows.addAll(Wrap.wrap(Line.of(Span.of(result == null ? "● " : failed ? "✗ " : "✓ ", Tone.ACCENT),
          new Span(name, Style.of(Tone.ACCENT).bolded()), Span.plain(" " + summary)), width, Line.plain("  ")));
      if (!preview.isBlank()) {
        for (Line l : DiffLines.render(preview, Math.max(1, width - 2))) {
          rows.add(l.prefixed("  "));
        }
      }
      if (result == null) {
        rows.add(Line.of(Span.of("  (no result yet)", Tone.MUTED)));
        return rows;
      }
      for (String line : result.strip().split("\n", -1)) {
        rows.addAll(Wrap.wrap(Line.of(Span.of("  " + Wrap.expandTabs(line), failed ? Tone.ERROR : Tone.NORMAL)), width,
            Line.plain("  ")));
      }
      return rows;
    }

    private void files(List<Line> rows, int width, List<String> files, String heading, Tone tone) {
      if (files.isEmpty()) {
        return;
      }
      rows.add(Line.of(Span.of("    " + files.size() + (files.size() == 1 ? " file " : " files ") + heading, tone)));
      int shown = expanded ? files.size() : Math.min(files.size(), FOLDED_FILES);
      for (int i = 0; i < shown; i++) {
        rows.add(Wrap.truncate(Line.of(Span.of("      " + files.get(i), Tone.NORMAL)), width));
      }
      if (shown < files.size()) {
        rows.add(Line.of(Span.of("      … " + (files.size() - shown) + " more (Ctrl+O expands)", Tone.MUTED)));
      }
    }
  }

  /** A steering message: queued while the turn runs, then folded into it. */
  public static final class Steering extends Block {
    private final String text;

    public Steering(int checkpoint, String text) {
      super(checkpoint);
      this.text = text;
    }

    public String text() {
      return text;
    }

    @Override
    protected List<Line> layout(int width) {
      return Wrap.wrap(Line.of(Span.of("› ", Tone.USER), Span.of(text, Tone.USER), Span.of("  · steering", Tone.MUTED)),
          width, Line.plain("  "));
    }
  }

  /** A message from Waymark itself: a warning, an error, a restore's account, a command's output. */
  public static final class Notice extends Block {
    private final Tone tone;
    private final List<Line> body;

    public Notice(int checkpoint, Tone tone, String text) {
      this(checkpoint, tone, text.lines().map(l -> Line.of(l, Style.of(tone))).toList());
    }

    public Notice(int checkpoint, Tone tone, List<Line> body) {
      super(checkpoint);
      this.tone = tone;
      this.body = List.copyOf(body);
    }

    @Override
    protected List<Line> layout(int width) {
      List<Line> rows = new ArrayList<>();
      for (Line l : body) {
        rows.addAll(Wrap.wrap(l, width, Line.plain("  ")));
      }
      return rows;
    }

    public Tone tone() {
      return tone;
    }

    /** What the notice says, without its style: its lines joined by newlines. */
    public String text() {
      return String.join("\n", body.stream().map(Line::text).toList());
    }
  }

  static String firstLine(String text) {
    String trimmed = text.strip();
    int nl = trimmed.indexOf('\n');
    if (nl < 0) {
      return trimmed;
    }
    long more = trimmed.lines().count() - 1;
    return trimmed.substring(0, nl) + " (+" + more + " more line" + (more == 1 ? "" : "s") + ", Ctrl+O)";
  }
}
