package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.KeyStroke;

/** What the user did at the keyboard, after paste and surrogate handling. */
public sealed interface UiInput {
  /** A key that is not plain text: Enter, arrows, Ctrl or Alt combinations. */
  record Key(KeyStroke stroke) implements UiInput {}

  /** One typed character: a code point, or a whole emoji whose halves arrived separately. */
  record Text(String text) implements UiInput {}

  /** Everything pasted at once; its line breaks are text, never Enter. */
  record Paste(String text) implements UiInput {}

  /** The terminal window gained ({@code true}) or lost the focus. */
  record Focus(boolean focused) implements UiInput {}

  /** The terminal's input ended. */
  record Eof() implements UiInput {}
}
