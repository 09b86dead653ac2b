package dev.waymark.tui.screen;

import dev.waymark.tui.text.Line;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A scrollable panel drawn over the chat: help, a diff. Its rows are laid out for the width it
 * is drawn at, so a resize re-lays it out.
 */
public final class Overlay {
  private final String title;
  private final IntFunction<List<Line>> layout;
  private int laidOutWidth = -1;
  private List<Line> rows = List.of();
  private int top;

  public Overlay(String title, IntFunction<List<Line>> layout) {
    this.title = title;
    this.layout = layout;
  }

  public String title() {
    return title;
  }

  public List<Line> rows(int width) {
    if (width != laidOutWidth) {
      rows = List.copyOf(layout.apply(Math.max(1, width)));
      laidOutWidth = width;
    }
    return rows;
  }

  public int top() {
    return top;
  }

  /** Moves by {@code delta} rows, kept within the rows a viewport of {@code height} can show. */
  public void scroll(int delta, int height) {
    int max = Math.max(0, rows.size() - height);
    top = Math.max(0, Math.min(max, top + delta));
  }

  public void scrollTo(int row, int height) {
    top = 0;
    scroll(row, height);
  }
}
