package dev.waymark.tui.text;

/** Counted nouns as the interface writes them, in one place so that every screen says them alike. */
public final class Plurals {
  private Plurals() {}

  /** "1 background process", "2 background processes". */
  public static String backgroundProcesses(int count) {
    return count + (count == 1 ? " background process" : " background processes");
  }
}
