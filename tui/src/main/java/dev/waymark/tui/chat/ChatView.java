package dev.waymark.tui.chat;

import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Lays out the visible part of a tab's chat. It starts at the row shown at the bottom and walks
 * back only as far as the viewport reaches, with every block's layout cached, so a frame costs the
 * same with ten messages or ten thousand.
 */
public final class ChatView {
  static final String VIEWING = "↶ Viewing checkpoint #%d, send a message to rewind here.";
  static final String REWOUND = "↶ Rewound past this point.";
  static final String LIVE_AGAIN = "↷ The live path goes on here: #%d, from #%d.";

  private ChatView() {}

  /**
   * Where the chat is scrolled to: following the end, or anchored so that row {@code row} of
   * block {@code block} is the bottom row. Kept per tab by the UI.
   */
  public static final class Scroll {
    private boolean following = true;
    private int block;
    private int row;

    public boolean following() {
      return following;
    }

    public void follow() {
      following = true;
    }

    void anchor(int atBlock, int atRow) {
      following = false;
      block = atBlock;
      row = atRow;
    }
  }

  /** Exactly {@code height} rows of the chat as the scroll position shows it. */
  public static List<Line> render(TabState tab, Scroll scroll, int width, int height) {
    List<Line> rows = new ArrayList<>(height);
    if (height <= 0 || width <= 0) {
      return rows;
    }
    Frame frame = new Frame(tab, width);
    int index;
    int row;
    if (scroll.following) {
      index = frame.lastIndex();
      row = frame.rows(index).size() - 1;
    } else {
      index = Math.min(scroll.block, frame.lastIndex());
      row = Math.min(scroll.row, frame.rows(index).size() - 1);
    }
    boolean ranOut = false;
    while (rows.size() < height) {
      if (index < 0) {
        ranOut = true;
        break;
      }
      List<Line> block = frame.rows(index);
      for (int r = Math.min(row, block.size() - 1); r >= 0 && rows.size() < height; r--) {
        rows.add(block.get(r));
      }
      index--;
      row = Integer.MAX_VALUE;
    }
    Collections.reverse(rows);
    while (rows.size() < height) {
      if (ranOut && scroll.following) {
        rows.add(Line.EMPTY); // a short chat starts at the top
      } else {
        rows.add(0, Line.EMPTY);
      }
    }
    return rows;
  }

  /** Anchors the scroll so that the "viewing" separator of the viewed checkpoint is the bottom row. */
  public static void showViewed(TabState tab, Scroll scroll, int width) {
    if (tab.viewed().isEmpty()) {
      scroll.follow();
      return;
    }
    Frame frame = new Frame(tab, width);
    int boundary = tab.viewBoundary();
    if (boundary >= tab.blocks().size()) {
      scroll.follow();
      return;
    }
    List<Line> rows = frame.rows(boundary);
    int separator = 0;
    while (separator < rows.size() - 1 && !rows.get(separator).text().startsWith("↶ Viewing")) {
      separator++;
    }
    scroll.anchor(boundary, separator);
  }

  /** Scrolls towards older messages by {@code count} rows, never past the first row. */
  public static void scrollUp(TabState tab, Scroll scroll, int width, int height, int count) {
    Frame frame = new Frame(tab, width);
    int index = scroll.following ? frame.lastIndex() : Math.min(scroll.block, frame.lastIndex());
    int row = scroll.following ? frame.rows(index).size() - 1 : scroll.row;
    int moved = 0;
    while (moved < count) {
      if (row > 0) {
        int step = Math.min(row, count - moved);
        row -= step;
        moved += step;
      } else if (index > 0) {
        index--;
        row = frame.rows(index).size() - 1;
        moved++;
      } else {
        break;
      }
    }
    // never leave blank rows above the first message
    int above = 0;
    for (int i = 0; i < index && above < height; i++) {
      above += frame.rows(i).size();
    }
    above += row + 1;
    if (above < height) {
      int need = height - above;
      while (need > 0) {
        List<Line> rows = frame.rows(index);
        int step = Math.min(need, rows.size() - 1 - row);
        row += step;
        need -= step;
        if (need > 0) {
          if (index >= frame.lastIndex()) {
            scroll.follow();
            return;
          }
          index++;
          row = 0;
          need--;
        }
      }
    }
    scroll.anchor(index, row);
  }

  /** Scrolls towards newer messages; reaching the end follows it again. */
  public static void scrollDown(TabState tab, Scroll scroll, int width, int count) {
    if (scroll.following) {
      return;
    }
    Frame frame = new Frame(tab, width);
    int index = Math.min(scroll.block, frame.lastIndex());
    int row = scroll.row + count;
    while (row >= frame.rows(index).size()) {
      row -= frame.rows(index).size();
      index++;
      if (index > frame.lastIndex()) {
        scroll.follow();
        return;
      }
    }
    if (index == frame.lastIndex() && row == frame.rows(index).size() - 1) {
      scroll.follow();
    } else {
      scroll.anchor(index, row);
    }
  }

  /** One frame's view of the blocks: separators, dimming and a blank row after each block. */
  private static final class Frame {
    private final TabState tab;
    private final int width;
    private final List<Block> blocks;
    private final int boundary;
    private final boolean viewing;

    Frame(TabState tab, int width) {
      this.tab = tab;
      this.width = width;
      this.blocks = tab.blocks();
      this.viewing = tab.viewed().isPresent();
      this.boundary = viewing ? tab.viewBoundary() : Integer.MAX_VALUE;
    }

    /** The index of the last row group: one past the blocks when a trailing separator is shown. */
    int lastIndex() {
      return viewing && boundary >= blocks.size() ? blocks.size() : blocks.size() - 1;
    }

    List<Line> rows(int index) {
      if (index < 0) {
        return List.of(Line.EMPTY);
      }
      List<Line> rows = new ArrayList<>();
      if (index == boundary) {
        rows.add(Line.of(String.format(VIEWING, tab.viewed().orElse(0)), Style.of(Tone.VIEWED).bolded()));
        rows.add(Line.EMPTY);
      }
      if (index >= blocks.size()) {
        return rows;
      }
      Block block = blocks.get(index);
      boolean rewound = tab.rewound(block);
      if (rewound && (index == 0 || !tab.rewound(blocks.get(index - 1)))) {
        rows.add(Line.of(Span.of(REWOUND, Tone.MUTED)));
      } else if (!rewound && block.checkpoint() > 0 && index > 0 && tab.rewound(blocks.get(index - 1))) {
        // a session brought back shows turns in the order they ran: say where the live path takes up again
        rows.add(Line.of(Span.of(String.format(LIVE_AGAIN, block.checkpoint(),
            tab.checkpoints().get(block.checkpoint()).parent()), Tone.MUTED)));
      }
      boolean dim = rewound || index >= boundary;
      for (Line line : block.lines(width)) {
        rows.add(dim ? line.dimmed() : line);
      }
      rows.add(Line.EMPTY);
      return rows;
    }
  }
}
