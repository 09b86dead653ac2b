package dev.waymark.tui.text;

import java.util.ArrayList;
import java.util.List;

/** Colours unified diffs: file headers, hunk headers, additions and removals. Long lines are cut, not wrapped. */
public final class DiffLines {
  private DiffLines() {}

  /** Every row of the diff, coloured, each cut to {@code width}. */
  public static List<Line> render(String unified, int width) {
    List<Line> rows = new ArrayList<>();
    for (String raw : lines(unified)) {
      rows.add(Wrap.truncate(colour(raw), Math.max(1, width)));
    }
    return rows;
  }

  /**
   * The changed rows only (hunk headers, additions, removals), at most {@code maxRows} of them, then
   * a row saying how many more there are: a preview of an edit in the chat.
   */
  public static List<Line> compact(String unified, int width, int maxRows) {
    return compact(unified, width, maxRows, "(Ctrl+O expands)");
  }

  /** As {@link #compact(String, int, int)}, the row of how many more ending with {@code moreHint}. */
  public static List<Line> compact(String unified, int width, int maxRows, String moreHint) {
    List<String> kept = new ArrayList<>();
    for (String raw : lines(unified)) {
      if (isHeader(raw)) {
        continue;
      }
      if (raw.startsWith("@@") || raw.startsWith("+") || raw.startsWith("-") || raw.startsWith("Binary files")) {
        kept.add(raw);
      }
    }
    List<Line> rows = new ArrayList<>();
    int limit = Math.max(1, maxRows);
    int shown = kept.size() > limit ? limit - 1 : kept.size();
    for (int i = 0; i < shown; i++) {
      rows.add(Wrap.truncate(colour(kept.get(i)), Math.max(1, width)));
    }
    if (shown < kept.size()) {
      int more = kept.size() - shown;
      rows.add(Line.of(Span.of("… " + more + " more line" + (more == 1 ? "" : "s") + " " + moreHint, Tone.MUTED)));
    }
    return rows;
  }

  private static List<String> lines(String unified) {
    List<String> all = new ArrayList<>();
    for (String line : unified.split("\n", -1)) {
      all.add(Wrap.expandTabs(line.replace("\r", "")));
    }
    if (!all.isEmpty() && all.get(all.size() - 1).isEmpty()) {
      all.remove(all.size() - 1);
    }
    return all;
  }

  private static boolean isHeader(String line) {
    return line.startsWith("diff ") || line.startsWith("--- ") || line.startsWith("+++ ") || line.startsWith("old mode ")
        || line.startsWith("new mode ") || line.startsWith("# ") || line.startsWith("index ");
  }

  private static Line colour(String line) {
    if (isHeader(line)) {
      return Line.of(line, Style.of(Tone.ACCENT).bolded());
    }
    if (line.startsWith("@@")) {
      return Line.of(line, Style.of(Tone.MUTED));
    }
    if (line.startsWith("+")) {
      return Line.of(line, Style.of(Tone.ADDED));
    }
    if (line.startsWith("-")) {
      return Line.of(line, Style.of(Tone.REMOVED));
    }
    if (line.startsWith("Binary files") || line.startsWith("\\")) {
      return Line.of(line, Style.of(Tone.MUTED));
    }
    return Line.plain(line);
  }
}
