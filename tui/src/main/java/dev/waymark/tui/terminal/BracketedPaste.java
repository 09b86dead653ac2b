package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.CharacterPattern;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.List;

/**
 * Recognises the terminal's bracketed-paste markers {@code ESC[200~} and {@code ESC[201~}, which
 * Lanterna does not know, so that a pasted block can be told from typed keys.
 */
public final class BracketedPaste implements CharacterPattern {
  static final String START = "\u001b[200~";
  static final String END = "\u001b[201~";
  public static final String ENABLE = "\u001b[?2004h";
  public static final String DISABLE = "\u001b[?2004l";

  /** The key stroke that marks where a paste starts or ends. */
  public static final class Marker extends KeyStroke {
    private final boolean start;

    Marker(boolean start) {
      super(KeyType.Unknown);
      this.start = start;
    }

    public boolean isStart() {
      return start;
    }

    @Override
    public String toString() {
      return start ? "PasteStart" : "PasteEnd";
    }
  }

  @Override
  public Matching match(List<Character> seq) {
    StringBuilder typed = new StringBuilder(seq.size());
    for (Character c : seq) {
      typed.append(c.charValue());
    }
    String s = typed.toString();
    if (s.equals(START)) {
      return new Matching(new Marker(true));
    }
    if (s.equals(END)) {
      return new Matching(new Marker(false));
    }
    if (START.startsWith(s) || END.startsWith(s)) {
      return Matching.NOT_YET;
    }
    return null;
  }
}
