package dev.waymark.core.workspace;

/**
 * Which of the run's tab settings the user chose for this run ({@code --model}, {@code --approval}):
 * a reopened tab takes those, not the ones it saved, since a flag typed now says what the user
 * wants now (a tab saved in {@code auto} must not run commands unasked after {@code --approval plan}).
 */
public record GivenNow(boolean model, boolean approval) {
  /** Nothing chosen for this run: each tab comes back with its own model and mode. */
  public static final GivenNow NOTHING = new GivenNow(false, false);
}
