package dev.waymark.tui.text;

/** Terminal column widths of text. (Placeholder signature; the full implementation follows.) */
public final class CellWidth {
  private CellWidth() {}

  public static int of(String text) {
    return text.codePointCount(0, text.length());
  }
}
