package dev.waymark.tui.text;

/** How a span is drawn: a tone and a few attributes. Immutable. */
public record Style(Tone tone, boolean bold, boolean italic, boolean underline, boolean dim, boolean reverse) {
  public static final Style PLAIN = new Style(Tone.NORMAL, false, false, false, false, false);

  public static Style of(Tone tone) {
    return new Style(tone, false, false, false, false, false);
  }

  public Style withTone(Tone newTone) {
    return new Style(newTone, bold, italic, underline, dim, reverse);
  }

  public Style bolded() {
    return new Style(tone, true, italic, underline, dim, reverse);
  }

  public Style italicized() {
    return new Style(tone, bold, true, underline, dim, reverse);
  }

  public Style underlined() {
    return new Style(tone, bold, italic, true, dim, reverse);
  }

  public Style dimmed() {
    return new Style(tone, bold, italic, underline, true, reverse);
  }

  public Style reversed() {
    return new Style(tone, bold, italic, underline, dim, true);
  }
}
