package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.CharacterPattern;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.List;

/**
 * Tells Enter from Ctrl+J. With the terminal's {@code icrnl} turned off (see {@link UiTerminal}),
 * Enter sends CR and Ctrl+J sends LF; Lanterna would read both as Enter.
 */
final class LineKeys implements CharacterPattern {
  static final KeyStroke CTRL_J = new KeyStroke('j', true, false);

  @Override
  public Matching match(List<Character> seq) {
    if (seq.size() == 1) {
      char c = seq.get(0);
      if (c == '\r') {
        return new Matching(new KeyStroke(KeyType.Enter));
      }
      if (c == '\n') {
        return new Matching(CTRL_J);
      }
      return c == '\u001b' ? Matching.NOT_YET : null;
    }
    if (seq.size() == 2 && seq.get(0) == '\u001b') {
      char c = seq.get(1);
      if (c == '\r') {
        return new Matching(new KeyStroke(KeyType.Enter, false, true));
      }
      if (c == '\n') {
        return new Matching(new KeyStroke('j', true, true));
      }
    }
    return null;
  }
}
