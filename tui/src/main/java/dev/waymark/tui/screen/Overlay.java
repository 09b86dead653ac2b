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
  private final Keys keys;

  /** Letters a panel answers itself (the diff view's n, p, a, b...); true when {@code text} was one of them. */
  public interface Keys {
    boolean typed(String text, Overlay overlay, int height);
  }

  public Overlay(String title, IntFunction<List<Line>> layout) {
    this(title, layout, null);
  }

  public Overlay(String title, IntFunction<List<Line>> layout, Keys keys) {
    this.title = title;
    this.layout = layout;
    this.keys = keys;
  }

  public String title() {
    return title;
  }

  /** Answers a letter typed over the panel; false when the panel has no use for it. */
  public boolean typed(String text, int height) {
    return keys != null && keys.typed(text, this, height);
  }

  /** The rows depend on more than the width (a cursor moved): lay them out again at the next frame. */
  public void relayout() {
    laidOutWidth = -1;
  }

  public List<Line> rows(int width) {
    if (width != laidOutWidth) {
      rows = List.copyOf(layout.apply(Math.max(1, width)));
      laidOutWidth = width;
      lastWidth = width;
    }
    return rows;
  }

  /** The width the rows were last laid out at (80 before the first frame). */
  public int width() {
    return laidOutWidth < 0 ? (lastWidth < 0 ? 80 : lastWidth) : laidOutWidth;
  }

  private int lastWidth = -1;

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
