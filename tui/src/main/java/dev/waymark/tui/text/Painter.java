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
    // Lanterna's Java 17 grapheme breaking splits skin tones, ZWJ families and flags: the cell
    // carries the whole sequence with our width instead
    TextCharacter[] parts = TextCharacter.fromString(cluster, fg, TextColor.ANSI.DEFAULT, modifiers);
    if (parts.length == 1 && parts[0].isDoubleWidth() == (width == 2)) {
      return parts[0];
    }
    TextCharacter base = parts.length > 0 ? parts[0]
        : TextCharacter.fromCharacter('?', fg, TextColor.ANSI.DEFAULT, modifiers)[0];
    return new Cluster(base, cluster, width == 2);
  }

  /** A cell holding a grapheme cluster Lanterna would split, drawn whole (see the terminal's ClusterOutput). */
  static final class Cluster extends TextCharacter {
    private final String cluster;
    private final boolean wide;

    Cluster(TextCharacter style, String cluster, boolean wide) {
      super(style);
      this.cluster = cluster;
      this.wide = wide;
    }

    @Override
    public String getCharacterString() {
      return cluster;
    }

    @Override
    public boolean isDoubleWidth() {
      return wide;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Cluster c && c.cluster.equals(cluster) && super.equals(other);
    }

    @Override
    public int hashCode() {
      return 31 * super.hashCode() + cluster.hashCode();
    }

    @Override
    public String toString() {
      return cluster;
    }
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
