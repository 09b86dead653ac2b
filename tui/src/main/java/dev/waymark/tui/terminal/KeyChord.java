package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.Locale;
import java.util.Map;

/**
 * A key as settings name it: {@code ctrl+b}, {@code alt+left}, {@code ctrl+pgup}, {@code alt+1},
 * {@code esc}, {@code alt+enter}, {@code f1}. Immutable; {@link #toString} gives the canonical form.
 */
public record KeyChord(KeyType type, char character, boolean ctrl, boolean alt, boolean shift) {
  private static final Map<String, KeyType> NAMES = Map.ofEntries(
      Map.entry("enter", KeyType.Enter), Map.entry("return", KeyType.Enter),
      Map.entry("esc", KeyType.Escape), Map.entry("escape", KeyType.Escape),
      Map.entry("tab", KeyType.Tab), Map.entry("backspace", KeyType.Backspace),
      Map.entry("delete", KeyType.Delete), Map.entry("del", KeyType.Delete), Map.entry("insert", KeyType.Insert),
      Map.entry("up", KeyType.ArrowUp), Map.entry("down", KeyType.ArrowDown),
      Map.entry("left", KeyType.ArrowLeft), Map.entry("right", KeyType.ArrowRight),
      Map.entry("home", KeyType.Home), Map.entry("end", KeyType.End),
      Map.entry("pgup", KeyType.PageUp), Map.entry("pageup", KeyType.PageUp),
      Map.entry("pgdn", KeyType.PageDown), Map.entry("pagedown", KeyType.PageDown),
      Map.entry("f1", KeyType.F1), Map.entry("f2", KeyType.F2), Map.entry("f3", KeyType.F3),
      Map.entry("f4", KeyType.F4), Map.entry("f5", KeyType.F5), Map.entry("f6", KeyType.F6),
      Map.entry("f7", KeyType.F7), Map.entry("f8", KeyType.F8), Map.entry("f9", KeyType.F9),
      Map.entry("f10", KeyType.F10), Map.entry("f11", KeyType.F11), Map.entry("f12", KeyType.F12));

  /** Parses a chord; the message of the exception says what is wrong. */
  public static KeyChord parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("An empty key name.");
    }
    String[] parts = text.trim().toLowerCase(Locale.ROOT).split("\\+", -1);
    boolean ctrl = false;
    boolean alt = false;
    boolean shift = false;
    for (int i = 0; i < parts.length - 1; i++) {
      switch (parts[i]) {
        case "ctrl", "control", "c" -> ctrl = true;
        case "alt", "meta", "option", "m" -> alt = true;
        case "shift", "s" -> shift = true;
        default -> throw new IllegalArgumentException("Unknown modifier \"" + parts[i] + "\" in \"" + text
            + "\" (use ctrl, alt or shift).");
      }
    }
    String key = parts[parts.length - 1];
    if (key.isEmpty()) {
      throw new IllegalArgumentException("No key after the modifiers in \"" + text + "\".");
    }
    if (key.equals("tab") && shift && !ctrl && !alt) {
      return new KeyChord(KeyType.ReverseTab, '\0', false, false, false);
    }
    KeyType type = NAMES.get(key);
    if (type != null) {
      return new KeyChord(type, '\0', ctrl, alt, shift);
    }
    if (key.codePointCount(0, key.length()) == 1 && key.length() == 1) {
      return new KeyChord(KeyType.Character, key.charAt(0), ctrl, alt, false);
    }
    throw new IllegalArgumentException("Unknown key \"" + key + "\" in \"" + text
        + "\" (a character, or enter, esc, tab, backspace, delete, up, down, left, right, home, end, pgup, pgdn, f1…f12).");
  }

  public boolean matches(KeyStroke stroke) {
    if (stroke == null) {
      return false;
    }
    if (type == KeyType.Character) {
      return stroke.getKeyType() == KeyType.Character && stroke.getCharacter() != null
          && Character.toLowerCase(stroke.getCharacter()) == character
          && stroke.isCtrlDown() == ctrl && stroke.isAltDown() == alt;
    }
    if (type == KeyType.Enter && alt && !ctrl && !shift) {
      // a legacy terminal sends Alt+Enter as ESC LF, which Lanterna reads as Ctrl+Alt+J
      if (stroke.getKeyType() == KeyType.Character && stroke.getCharacter() != null
          && stroke.getCharacter() == 'j' && stroke.isCtrlDown() && stroke.isAltDown()) {
        return true;
      }
    }
    return stroke.getKeyType() == type && stroke.isCtrlDown() == ctrl && stroke.isAltDown() == alt
        && stroke.isShiftDown() == shift;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    if (ctrl) {
      b.append("ctrl+");
    }
    if (alt) {
      b.append("alt+");
    }
    if (shift) {
      b.append("shift+");
    }
    if (type == KeyType.Character) {
      return b.append(character).toString();
    }
    if (type == KeyType.ReverseTab) {
      return "shift+tab";
    }
    for (var name : new String[] {"enter", "esc", "tab", "backspace", "delete", "insert", "up", "down", "left", "right",
        "home", "end", "pgup", "pgdn", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"}) {
      if (NAMES.get(name) == type) {
        return b.append(name).toString();
      }
    }
    return b.append(type.name().toLowerCase(Locale.ROOT)).toString();
  }
}
