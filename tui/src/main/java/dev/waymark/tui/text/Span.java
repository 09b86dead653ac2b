package dev.waymark.tui.text;

import java.util.Objects;

/** A run of text in one style. The text never holds a line break. */
public record Span(String text, Style style) {
  public Span {
    Objects.requireNonNull(text);
    Objects.requireNonNull(style);
  }

  public static Span of(String text, Tone tone) {
    return new Span(text, Style.of(tone));
  }

  public static Span plain(String text) {
    return new Span(text, Style.PLAIN);
  }

  public int width() {
    return CellWidth.of(text);
  }
}
