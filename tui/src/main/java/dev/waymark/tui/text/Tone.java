package dev.waymark.tui.text;

/** What a piece of text means to the reader; the painter maps each tone to a colour. */
public enum Tone {
  NORMAL,
  MUTED,
  ACCENT,
  USER,
  ADDED,
  REMOVED,
  WARNING,
  ERROR,
  CODE,
  HEADING,
  VIEWED
}
