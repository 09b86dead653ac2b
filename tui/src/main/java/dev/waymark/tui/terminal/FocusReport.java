package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.CharacterPattern;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.List;

/**
 * Recognises the terminal's focus reports ({@code ESC[I} focus in, {@code ESC[O} focus out, sent
 * once {@link #ENABLE} asked for them), which Lanterna does not know: a notification is shown only
 * while the user looks elsewhere.
 */
public final class FocusReport implements CharacterPattern {
  static final String IN = "\u001b[I";
  static final String OUT = "\u001b[O";
  public static final String ENABLE = "\u001b[?1004h";
  public static final String DISABLE = "\u001b[?1004l";

  /** The key stroke a report becomes. */
  public static final class Marker extends KeyStroke {
    private final boolean focused;

    Marker(boolean focused) {
      super(KeyType.Unknown);
      this.focused = focused;
    }

    public boolean focused() {
      return focused;
    }

    @Override
    public String toString() {
      return focused ? "FocusIn" : "FocusOut";
    }
  }

  @Override
  public Matching match(List<Character> seq) {
    StringBuilder typed = new StringBuilder(seq.size());
    seq.forEach(typed::append);
    String s = typed.toString();
    if (s.equals(IN) || s.equals(OUT)) {
      return new Matching(new Marker(s.equals(IN)));
    }
    return IN.startsWith(s) || OUT.startsWith(s) ? Matching.NOT_YET : null;
  }
}
