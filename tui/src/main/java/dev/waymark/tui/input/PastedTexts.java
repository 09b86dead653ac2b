package dev.waymark.tui.input;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Large pastes, folded in the input as one placeholder ({@code [Pasted text #1 +120 lines]}) so the
 * message stays readable and editable around them, and put back whole when the message is sent or
 * its draft saved. One set for all tabs: a placeholder that ↑ brings back into another tab still expands.
 */
public final class PastedTexts {
  /** A paste longer than this many lines, or characters, is folded. */
  static final int MAX_LINES = 10;
  static final int MAX_CHARS = 2_000;

  private final Map<String, String> byPlaceholder = new LinkedHashMap<>();

  /** What goes into the input for {@code pasted}: itself when short, else a placeholder that stands for it. */
  public String fold(String pasted) {
    long lines = pasted.lines().count();
    if (lines <= MAX_LINES && pasted.length() <= MAX_CHARS) {
      return pasted;
    }
    String amount = lines > 1 ? "+" + lines + " lines" : String.format("%,d characters", pasted.length());
    String placeholder = "[Pasted text #" + (byPlaceholder.size() + 1) + " " + amount + "]";
    byPlaceholder.put(placeholder, pasted);
    return placeholder;
  }

  /** {@code typed} with every placeholder still in it replaced by the text it stands for. */
  public String expand(String typed) {
    String text = typed;
    for (var e : byPlaceholder.entrySet()) {
      if (text.contains(e.getKey())) {
        text = text.replace(e.getKey(), e.getValue());
      }
    }
    return text;
  }
}
