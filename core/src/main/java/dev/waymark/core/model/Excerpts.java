package dev.waymark.core.model;

/** What a server or a script sent, cut to one line a message can quote. */
final class Excerpts {
  private static final int EXCERPT = 300;

  private Excerpts() {}

  /** {@code text} on one line, its runs of white space one space each, cut at 300 characters. */
  static String oneLine(String text) {
    String oneLine = text.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= EXCERPT ? oneLine : oneLine.substring(0, EXCERPT) + "...";
  }
}
