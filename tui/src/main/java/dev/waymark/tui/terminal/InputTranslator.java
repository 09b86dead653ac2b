package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.Optional;

/**
 * Turns Lanterna's key strokes into {@link UiInput}: collects everything between paste markers
 * into one paste, and joins the two halves of a character outside the basic plane (an emoji
 * arrives as a high and a low surrogate).
 */
public final class InputTranslator {
  private StringBuilder paste;
  private char pendingHigh;

  /** The input this stroke completes, if any. */
  public Optional<UiInput> translate(KeyStroke stroke) {
    if (stroke == null) {
      return Optional.empty();
    }
    if (stroke.getKeyType() == KeyType.EOF) {
      return Optional.of(new UiInput.Eof());
    }
    if (stroke instanceof FocusReport.Marker focus) {
      return Optional.of(new UiInput.Focus(focus.focused()));
    }
    if (stroke instanceof BracketedPaste.Marker marker) {
      if (marker.isStart()) {
        paste = new StringBuilder();
        return Optional.empty();
      }
      String text = paste == null ? "" : paste.toString();
      paste = null;
      return text.isEmpty() ? Optional.empty() : Optional.of(new UiInput.Paste(text));
    }
    if (paste != null) {
      switch (stroke.getKeyType()) {
        // ESC of a pasted colour is kept, so the input drops the whole sequence, not just the ESC
        case Character -> paste.append(stroke.isAltDown() ? "\u001b" : "").append(stroke.getCharacter());
        case Escape -> paste.append('\u001b');
        case Enter -> paste.append('\n');
        case Tab -> paste.append('\t');
        default -> { } // arrows and the like cannot be pasted
      }
      return Optional.empty();
    }
    if (stroke.getKeyType() == KeyType.Character && !stroke.isCtrlDown() && !stroke.isAltDown()) {
      char c = stroke.getCharacter();
      if (Character.isHighSurrogate(c)) {
        pendingHigh = c;
        return Optional.empty();
      }
      if (Character.isLowSurrogate(c)) {
        char high = pendingHigh;
        pendingHigh = 0;
        return high == 0 ? Optional.empty() : Optional.of(new UiInput.Text(new String(new char[] {high, c})));
      }
      pendingHigh = 0;
      return Optional.of(new UiInput.Text(String.valueOf(c)));
    }
    pendingHigh = 0;
    return Optional.of(new UiInput.Key(stroke));
  }
}
