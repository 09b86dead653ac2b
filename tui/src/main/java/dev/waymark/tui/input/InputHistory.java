package dev.waymark.tui.input;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What was sent before, for Up and Down. Going up keeps the unsent draft aside; coming back down
 * past the newest entry returns it.
 */
public final class InputHistory {
  static final int LIMIT = 500;

  private final List<String> entries = new ArrayList<>();
  private int position = -1; // -1: not browsing
  private String draft = "";

  public void add(String entry) {
    if (!entry.isBlank() && (entries.isEmpty() || !entries.get(entries.size() - 1).equals(entry))) {
      entries.add(entry);
      if (entries.size() > LIMIT) {
        entries.remove(0);
      }
    }
    position = -1;
  }

  /** The entry before the one shown; {@code current} is kept as the draft when browsing starts. */
  public Optional<String> previous(String current) {
    if (entries.isEmpty()) {
      return Optional.empty();
    }
    if (position < 0) {
      draft = current;
      position = entries.size();
    }
    if (position == 0) {
      return Optional.empty();
    }
    position--;
    return Optional.of(entries.get(position));
  }

  /** The entry after the one shown, or the draft past the newest. */
  public Optional<String> next() {
    if (position < 0) {
      return Optional.empty();
    }
    position++;
    if (position >= entries.size()) {
      position = -1;
      return Optional.of(draft);
    }
    return Optional.of(entries.get(position));
  }
}
