package dev.waymark.tui.input;

import dev.waymark.tui.text.CellWidth;
import java.util.ArrayList;
import java.util.List;

/** Soft-wraps the input's text to the box and finds the caret's row and column on screen. */
public final class InputLayout {
  private InputLayout() {}

  /**
   * @param rows every row of the wrapped text
   * @param caretRow the row of the caret, in {@code rows}
   * @param caretColumn its screen column within the row
   * @param firstRow the first row to show so that the caret's row is within the visible rows
   */
  public record Layout(List<String> rows, int caretRow, int caretColumn, int firstRow) {}

  public static Layout layout(String text, int caret, int width, int maxRows) {
    int w = Math.max(1, width);
    List<String> rows = new ArrayList<>();
    int caretRow = 0;
    int caretColumn = 0;
    StringBuilder row = new StringBuilder();
    int column = 0;
    int i = 0;
    boolean caretPlaced = false;
    while (i <= text.length()) {
      if (i == caret && !caretPlaced) {
        if (column >= w) { // a caret after a full row sits at the start of the next
          rows.add(row.toString());
          row.setLength(0);
          column = 0;
        }
        caretRow = rows.size();
        caretColumn = column;
        caretPlaced = true;
      }
      if (i == text.length()) {
        break;
      }
      int cp = text.codePointAt(i);
      int next = cp == '\n' || cp == '\t' ? i + 1 : CellWidth.clusterEnd(text, i);
      if (caret > i && caret < next) {
        next = caret; // a caret inside a cluster (typed half of it) stays where it is
      }
      if (cp == '\n') {
        rows.add(row.toString());
        row.setLength(0);
        column = 0;
        i = next;
        continue;
      }
      String ch = cp == '\t' ? "    " : text.substring(i, next);
      int cw = cp == '\t' ? 4 : CellWidth.of(ch);
      if (column + cw > w && column > 0) {
        rows.add(row.toString());
        row.setLength(0);
        column = 0;
      }
      row.append(ch);
      column += cw;
      i = next;
    }
    rows.add(row.toString());
    int visible = Math.max(1, maxRows);
    int first = Math.max(0, Math.min(caretRow - visible + 1, rows.size() - visible));
    first = Math.min(first, caretRow);
    return new Layout(rows, caretRow, caretColumn, Math.max(0, first));
  }
}
