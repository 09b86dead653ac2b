package dev.waymark.tui.text;

import java.util.ArrayList;
import java.util.List;

/** One screen row's worth of styled text (before or after wrapping). Immutable. */
public record Line(List<Span> spans) {
  public static final Line EMPTY = new Line(List.of());

  public Line {
    spans = List.copyOf(spans);
  }

  public static Line of(Span... spans) {
    return new Line(List.of(spans));
  }

  public static Line plain(String text) {
    return text.isEmpty() ? EMPTY : of(Span.plain(text));
  }

  public static Line of(String text, Style style) {
    return text.isEmpty() ? EMPTY : of(new Span(text, style));
  }

  /** Columns this line takes on a terminal. */
  public int width() {
    int w = 0;
    for (Span s : spans) {
      w += s.width();
    }
    return w;
  }

  public String text() {
    StringBuilder b = new StringBuilder();
    for (Span s : spans) {
      b.append(s.text());
    }
    return b.toString();
  }

  public Line plus(Span span) {
    List<Span> all = new ArrayList<>(spans);
    all.add(span);
    return new Line(all);
  }

  /** The same line, every span dimmed: how text after the viewed checkpoint looks. */
  public Line dimmed() {
    List<Span> all = new ArrayList<>(spans.size());
    for (Span s : spans) {
      all.add(new Span(s.text(), s.style().dimmed()));
    }
    return new Line(all);
  }

  /** The same line after {@code prefix} in the plain style: an indent. */
  public Line prefixed(String prefix) {
    List<Span> all = new ArrayList<>(spans.size() + 1);
    all.add(Span.plain(prefix));
    all.addAll(spans);
    return new Line(all);
  }
}
