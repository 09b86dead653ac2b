package dev.waymark.core;

/** A count with its noun as a user reads it, "1 file" and "2 files": one place, so that no "1 file(s)" is written. */
public final class Counted {
  private Counted() {}

  /** {@code n} and the noun, with an s unless it is one. */
  public static String of(long n, String noun) {
    return of(n, noun, noun + "s");
  }

  public static String of(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }
}
