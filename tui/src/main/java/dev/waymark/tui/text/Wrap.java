package dev.waymark.tui.text;

import java.util.ArrayList;
import java.util.List;

/** Word-wraps and truncates styled lines by terminal columns, never splitting a cluster. */
public final class Wrap {
  private Wrap() {}

  public static String expandTabs(String text) {
    return text.indexOf('\t') < 0 ? text : text.replace("\t", "    ");
  }

  public static List<Line> wrap(Line line, int width) {
    return wrap(line, width, Line.EMPTY);
  }

  /**
   * Rows of at most {@code width} columns: breaks after spaces, breaks a word longer than a row
   * at a cluster, and starts every row after the first with {@code hangingIndent}.
   */
  public static List<Line> wrap(Line line, int width, Line hangingIndent) {
    int w = Math.max(1, width);
    Line indent = hangingIndent.width() >= w ? Line.EMPTY : hangingIndent;
    List<Line> rows = new ArrayList<>();
    // cells: one cluster with its style, flattened so breaks can fall anywhere
    List<String> clusters = new ArrayList<>();
    List<Style> styles = new ArrayList<>();
    for (Span span : line.spans()) {
      for (String c : CellWidth.clusters(expandTabs(span.text()))) {
        clusters.add(c);
        styles.add(span.style());
      }
    }
    int i = 0;
    boolean first = true;
    while (true) {
      int room = first ? w : w - indent.width();
      int used = 0;
      int end = i;
      int lastBreak = -1;
      while (end < clusters.size()) {
        int cw = CellWidth.clusterWidth(clusters.get(end));
        if (used + cw > room) {
          break;
        }
        used += cw;
        if (clusters.get(end).equals(" ")) {
          lastBreak = end + 1;
        }
        end++;
      }
      boolean atSpace = end < clusters.size() && clusters.get(end).equals(" ");
      if (end < clusters.size() && !atSpace && lastBreak > i) {
        end = lastBreak;
      }
      boolean indented = !first;
      if (end == i && i < clusters.size()) {
        // a cluster wider than the room: alone on its row, without the indent if that is what it needs
        end = i + 1;
        indented = indented && indent.width() + CellWidth.clusterWidth(clusters.get(i)) <= w;
      }
      List<Span> spans = new ArrayList<>();
      if (indented) {
        spans.addAll(indent.spans());
      }
      int stop = end;
      // spaces at a soft break are not drawn at the end of the row
      while (end < clusters.size() && stop > i && clusters.get(stop - 1).equals(" ")) {
        stop--;
      }
      appendRun(spans, clusters, styles, i, stop);
      rows.add(new Line(spans));
      first = false;
      i = atSpace ? end + 1 : end; // the space at a soft break is not drawn on either row
      if (i >= clusters.size()) {
        break;
      }
    }
    return rows;
  }

  private static void appendRun(List<Span> spans, List<String> clusters, List<Style> styles, int from, int to) {
    int i = from;
    while (i < to) {
      Style style = styles.get(i);
      StringBuilder text = new StringBuilder();
      while (i < to && styles.get(i).equals(style)) {
        text.append(clusters.get(i));
        i++;
      }
      spans.add(new Span(text.toString(), style));
    }
  }

  /** The line cut to {@code width} columns, ending in "…" when something was cut. */
  public static Line truncate(Line line, int width) {
    if (line.width() <= width) {
      return line;
    }
    if (width <= 0) {
      return Line.EMPTY;
    }
    List<Span> spans = new ArrayList<>();
    int room = width - 1;
    Style last = Style.PLAIN;
    for (Span span : line.spans()) {
      String text = expandTabs(span.text());
      int w = CellWidth.of(text);
      last = span.style();
      if (w <= room) {
        spans.add(new Span(text, span.style()));
        room -= w;
      } else {
        String cut = CellWidth.truncate(text, room);
        if (!cut.isEmpty()) {
          spans.add(new Span(cut, span.style()));
        }
        break;
      }
    }
    spans.add(new Span("…", last));
    return new Line(spans);
  }
}
