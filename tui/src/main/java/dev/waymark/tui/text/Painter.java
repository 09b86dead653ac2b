package dev.waymark.tui.text;

import com.googlecode.lanterna.SGR;
import com.googlecode.lanterna.TextCharacter;
import com.googlecode.lanterna.TextColor;
import com.googlecode.lanterna.graphics.TextGraphics;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws styled lines onto Lanterna, one grapheme cluster per cell, with our own widths: a wide
 * cluster takes its cell and the next, which is never written over, and one that would not fit
 * at the edge becomes a space.
 */
public final class Painter {
  private static final TextColor ORANGE = new TextColor.Indexed(208);

  private Painter() {}

  /** Paints {@code line} from ({@code column}, {@code row}) within {@code maxWidth} columns; returns the columns used. */
  public static int paint(TextGraphics g, int column, int row, Line line, int maxWidth) {
    int used = 0;
    for (Span span : line.spans()) {
      TextColor fg = colour(span.style());
      SGR[] modifiers = modifiers(span.style());
      for (String cluster : CellWidth.clusters(span.text())) {
        int w = CellWidth.clusterWidth(cluster);
        if (w == 0) {
          continue;
        }
        if (used + w > maxWidth) {
          if (used < maxWidth) {
            g.setCharacter(column + used, row, TextCharacter.fromCharacter(' ', fg, TextColor.ANSI.DEFAULT, modifiers)[0]);
          }
          return maxWidth;
        }
        g.setCharacter(column + used, row, character(cluster, w, fg, modifiers));
        used += w;
      }
    }
    return used;
  }

  private static TextCharacter character(String cluster, int width, TextColor fg, SGR[] modifiers) {
    if (cluster.length() == 1) {
      return TextCharacter.fromCharacter(cluster.charAt(0), fg, TextColor.ANSI.DEFAULT, modifiers)[0];
    }
    // Lanterna's Java 17 grapheme breaking splits skin tones, ZWJ families and flags; drawing its
    // first piece (the plain emoji) keeps the columns right where the whole sequence cannot be sent
    TextCharacter[] parts = TextCharacter.fromString(cluster, fg, TextColor.ANSI.DEFAULT, modifiers);
    if (parts.length == 1 || parts[0].isDoubleWidth() == (width == 2)) {
      return parts[0];
    }
    return TextCharacter.fromCharacter(width == 2 ? '\u25A1' : '?', fg, TextColor.ANSI.DEFAULT, modifiers)[0];
  }

  /** The colour a tone is drawn in; ANSI colours, so the user's terminal theme decides the shade. */
  public static TextColor colour(Style style) {
    if (style.dim()) {
      return TextColor.ANSI.BLACK_BRIGHT;
    }
    return switch (style.tone()) {
      case NORMAL -> TextColor.ANSI.DEFAULT;
      case MUTED -> TextColor.ANSI.BLACK_BRIGHT;
      case ACCENT, HEADING -> TextColor.ANSI.CYAN;
      case USER -> TextColor.ANSI.BLUE_BRIGHT;
      case ADDED -> TextColor.ANSI.GREEN;
      case REMOVED, ERROR -> TextColor.ANSI.RED;
      case WARNING -> TextColor.ANSI.YELLOW;
      case CODE -> TextColor.ANSI.MAGENTA;
      case VIEWED -> ORANGE;
    };
  }

  private static SGR[] modifiers(Style style) {
    List<SGR> sgr = new ArrayList<>(4);
    if (style.bold()) {
      sgr.add(SGR.BOLD);
    }
    if (style.italic()) {
      sgr.add(SGR.ITALIC);
    }
    if (style.underline()) {
      sgr.add(SGR.UNDERLINE);
    }
    if (style.reverse()) {
      sgr.add(SGR.REVERSE);
    }
    return sgr.toArray(SGR[]::new);
  }
}
