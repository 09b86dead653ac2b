package dev.waymark.tui.input;

import java.util.regex.Pattern;

/**
 * The text being typed and its caret: the one mutable thing of the input box, owned by the UI
 * thread. The caret is an index into the text and never splits a surrogate pair.
 */
public final class InputEditor {
  private final StringBuilder text = new StringBuilder();
  private int caret;
  private boolean selected;

  public String text() {
    return text.toString();
  }

  public int caret() {
    return caret;
  }

  public boolean isEmpty() {
    return text.length() == 0;
  }

  public void setText(String value) {
    text.setLength(0);
    text.append(value);
    caret = text.length();
    selected = false;
  }

  /**
   * Puts back text the user did not type just now (an undone prompt), selected: the next text typed
   * or pasted replaces it and a deleting key removes it, so a command typed after an undo is not
   * appended to it. A moving key keeps it, to edit.
   */
  public void refill(String value) {
    setText(value);
    selected = !value.isEmpty();
  }

  /** True while refilled text is selected. */
  public boolean selected() {
    return selected;
  }

  /** Clears the selection, if any: true when the selected text was removed. */
  private boolean replaceSelection() {
    if (!selected) {
      return false;
    }
    setText("");
    return true;
  }

  /** Replaces the text from {@code start} to {@code end} with {@code with}, the caret after it. */
  public void replace(int start, int end, String with) {
    selected = false;
    text.replace(start, end, with);
    caret = start + with.length();
  }

  public void clear() {
    setText("");
  }

  public void insert(String s) {
    replaceSelection();
    String clean = printable(s);
    text.insert(caret, clean);
    caret += clean.length();
  }

  private static final Pattern ESCAPES = Pattern.compile(
      "\u001b\\[[0-?]*[ -/]*[@-~]" // colours and other CSI sequences
      + "|\u001b\\].*?(?:\u0007|\u001b\\\\)" // OSC: titles, hyperlinks
      + "|\u001b.?", Pattern.DOTALL);

  /**
   * What of pasted text can be typed: line ends become {@code \n}; terminal escape sequences (the
   * colours of copied terminal output) and other control characters would show as garbage or
   * reach the model, so they go; tabs and newlines stay.
   */
  static String printable(String s) {
    String text = s.replace("\r\n", "\n").replace('\r', '\n');
    if (text.chars().noneMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\t')) {
      return text;
    }
    text = ESCAPES.matcher(text).replaceAll("");
    StringBuilder kept = new StringBuilder(text.length());
    text.chars().filter(c -> !Character.isISOControl(c) || c == '\n' || c == '\t').forEach(c -> kept.append((char) c));
    return kept.toString();
  }

  public void backspace() {
    if (replaceSelection()) {
      return;
    }
    if (caret > 0) {
      int from = text.offsetByCodePoints(caret, -1);
      text.delete(from, caret);
      caret = from;
    }
  }

  public void delete() {
    if (replaceSelection()) {
      return;
    }
    if (caret < text.length()) {
      text.delete(caret, text.offsetByCodePoints(caret, 1));
    }
  }

  public void left() {
    selected = false;
    if (caret > 0) {
      caret = text.offsetByCodePoints(caret, -1);
    }
  }

  public void right() {
    selected = false;
    if (caret < text.length()) {
      caret = text.offsetByCodePoints(caret, 1);
    }
  }

  /** To the start of the line (Home, Ctrl+A). */
  public void home() {
    selected = false;
    caret = lineStart(caret);
  }

  /** To the end of the line (End, Ctrl+E). */
  public void end() {
    selected = false;
    caret = lineEnd(caret);
  }

  public void up() {
    selected = false;
    int start = lineStart(caret);
    if (start == 0) {
      caret = 0;
      return;
    }
    int column = text.codePointCount(start, caret);
    int previousStart = lineStart(start - 1);
    caret = offsetInLine(previousStart, start - 1, column);
  }

  public void down() {
    selected = false;
    int end = lineEnd(caret);
    if (end == text.length()) {
      caret = end;
      return;
    }
    int column = text.codePointCount(lineStart(caret), caret);
    int nextStart = end + 1;
    caret = offsetInLine(nextStart, lineEnd(nextStart), column);
  }

  public void wordLeft() {
    selected = false;
    int i = caret;
    while (i > 0 && !Character.isLetterOrDigit(text.codePointBefore(i))) {
      i = text.offsetByCodePoints(i, -1);
    }
    while (i > 0 && Character.isLetterOrDigit(text.codePointBefore(i))) {
      i = text.offsetByCodePoints(i, -1);
    }
    caret = i;
  }

  public void wordRight() {
    selected = false;
    int i = caret;
    while (i < text.length() && !Character.isLetterOrDigit(text.codePointAt(i))) {
      i = text.offsetByCodePoints(i, 1);
    }
    while (i < text.length() && Character.isLetterOrDigit(text.codePointAt(i))) {
      i = text.offsetByCodePoints(i, 1);
    }
    caret = i;
  }

  /** Deletes the word before the caret (Alt+Backspace, Ctrl+W). */
  public void deleteWordBack() {
    if (replaceSelection()) {
      return;
    }
    int end = caret;
    wordLeft();
    text.delete(caret, end);
  }

  /** Deletes to the end of the line, or the line break when at its end (Ctrl+K). */
  public void killToEnd() {
    if (replaceSelection()) {
      return;
    }
    int end = lineEnd(caret);
    text.delete(caret, end == caret && end < text.length() ? end + 1 : end);
  }

  /** Deletes to the start of the line (Ctrl+U). */
  public void killToStart() {
    if (replaceSelection()) {
      return;
    }
    int start = lineStart(caret);
    text.delete(start, caret);
    caret = start;
  }

  public boolean isOnFirstRow() {
    return text.lastIndexOf("\n", caret - 1) < 0;
  }

  public boolean isOnLastRow() {
    return text.indexOf("\n", caret) < 0;
  }

  private int lineStart(int at) {
    int nl = at == 0 ? -1 : text.lastIndexOf("\n", at - 1);
    return nl + 1;
  }

  private int lineEnd(int at) {
    int nl = text.indexOf("\n", at);
    return nl < 0 ? text.length() : nl;
  }

  private int offsetInLine(int start, int end, int column) {
    int i = start;
    for (int c = 0; c < column && i < end; c++) {
      i = text.offsetByCodePoints(i, 1);
    }
    return i;
  }
}
