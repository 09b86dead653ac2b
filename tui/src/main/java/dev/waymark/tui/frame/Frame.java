package dev.waymark.tui.frame;

import com.googlecode.lanterna.TerminalPosition;
import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.TextColor;
import com.googlecode.lanterna.graphics.TextGraphics;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Painter;
import java.util.List;
import java.util.Optional;

/**
 * One laid-out screen: styled lines at their places, where the cursor goes (none while something
 * modal is shown), and the size the chat got (scrolling by a page needs it).
 */
public record Frame(TerminalSize size, List<Row> rows, Optional<TerminalPosition> cursor, int chatWidth, int chatHeight,
    boolean tooSmall) {

  /** {@code line} drawn from ({@code column}, {@code row}) within {@code width} columns. */
  public record Row(int column, int row, Line line, int width) {}

  /** Clears {@code g} and draws the rows; no terminal I/O. */
  public void paint(TextGraphics g) {
    g.setBackgroundColor(TextColor.ANSI.DEFAULT);
    g.setForegroundColor(TextColor.ANSI.DEFAULT);
    g.fill(' ');
    for (Row r : rows) {
      Painter.paint(g, r.column(), r.row(), r.line(), r.width());
    }
  }
}
