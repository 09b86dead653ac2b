package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which keys do which {@link Action}. Every binding can be replaced or removed in settings.
 * Ctrl+B and Ctrl+F are tmux's prefix and readline's cursor keys, so browsing is also on
 * Alt+← and Alt+→. Ctrl+S, Ctrl+Q, Ctrl+Z and Ctrl+\ are left alone: terminals often eat them.
 * Editing keys are actions too: every key the interface reacts to is found here.
 */
public final class KeyMap {
  private final Map<Action, List<KeyChord>> bindings;

  private KeyMap(Map<Action, List<KeyChord>> bindings) {
    this.bindings = bindings;
  }

  public static KeyMap defaults() {
    Map<Action, List<KeyChord>> b = new EnumMap<>(Action.class);
    bind(b, Action.SUBMIT, "enter");
    bind(b, Action.NEWLINE, "alt+enter", "ctrl+j");
    bind(b, Action.INTERRUPT, "esc");
    bind(b, Action.VIEW_BACK, "ctrl+b", "alt+left");
    bind(b, Action.VIEW_FORWARD, "ctrl+f", "alt+right");
    bind(b, Action.NEW_TAB, "ctrl+t");
    bind(b, Action.CLOSE_TAB, "ctrl+w");
    bind(b, Action.NEXT_TAB, "ctrl+pgdn");
    bind(b, Action.PREVIOUS_TAB, "ctrl+pgup");
    for (int i = 1; i <= 9; i++) {
      bind(b, Action.valueOf("TAB_" + i), "alt+" + i);
    }
    bind(b, Action.HISTORY_PREVIOUS, "up");
    bind(b, Action.HISTORY_NEXT, "down");
    bind(b, Action.COMPLETE, "tab");
    bind(b, Action.SCROLL_UP, "pgup");
    bind(b, Action.SCROLL_DOWN, "pgdn");
    bind(b, Action.EXPAND, "ctrl+o");
    bind(b, Action.CYCLE_MODE, "shift+tab");
    bind(b, Action.CLEAR_OR_EXIT, "ctrl+c");
    bind(b, Action.EXIT_IF_EMPTY, "ctrl+d");
    bind(b, Action.HELP, "f1");
    bind(b, Action.CURSOR_LEFT, "left");
    bind(b, Action.CURSOR_RIGHT, "right");
    bind(b, Action.WORD_LEFT, "alt+b", "ctrl+left");
    bind(b, Action.WORD_RIGHT, "alt+f", "ctrl+right");
    bind(b, Action.LINE_START, "home", "ctrl+a");
    bind(b, Action.LINE_END, "end", "ctrl+e");
    bind(b, Action.DELETE_BACK, "backspace");
    bind(b, Action.DELETE_FORWARD, "delete");
    // readline's Ctrl+W too: on text it deletes a word, on an empty input it is close-tab's
    bind(b, Action.DELETE_WORD_BACK, "alt+backspace", "ctrl+w");
    bind(b, Action.KILL_TO_END, "ctrl+k");
    bind(b, Action.KILL_TO_START, "ctrl+u");
    return new KeyMap(b);
  }

  private static void bind(Map<Action, List<KeyChord>> b, Action action, String... chords) {
    List<KeyChord> parsed = new ArrayList<>();
    for (String chord : chords) {
      parsed.add(KeyChord.parse(chord));
    }
    b.put(action, List.copyOf(parsed));
  }

  /**
   * This map with some actions bound anew: keys are action names in kebab-case ({@code view-back}),
   * values the keys that replace the defaults; an empty list unbinds the action.
   *
   * @throws IllegalArgumentException naming the unknown action or the bad key
   */
  public KeyMap withOverrides(Map<String, List<String>> overrides) {
    Map<Action, List<KeyChord>> b = new EnumMap<>(bindings);
    for (var entry : overrides.entrySet()) {
      Action action = null;
      for (Action a : Action.values()) {
        if (a.settingName().equals(entry.getKey())) {
          action = a;
        }
      }
      if (action == null) {
        throw new IllegalArgumentException("Unknown action \"" + entry.getKey() + "\" in keyBindings (known: "
            + String.join(", ", Arrays.stream(Action.values()).map(Action::settingName).toList()) + ").");
      }
      try {
        bind(b, action, entry.getValue().toArray(String[]::new));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("keyBindings." + entry.getKey() + ": " + e.getMessage(), e);
      }
    }
    return new KeyMap(b);
  }

  /**
   * The action bound to this key; the first one in {@link Action} order wins a clash. A key with
   * Shift that is not bound does what it does without (Shift+← moves the cursor).
   */
  public Optional<Action> actionFor(KeyStroke stroke) {
    Optional<Action> bound = bound(stroke);
    if (bound.isEmpty() && stroke != null && stroke.isShiftDown() && stroke.getKeyType() != KeyType.Character) {
      return bound(new KeyStroke(stroke.getKeyType(), stroke.isCtrlDown(), stroke.isAltDown(), false));
    }
    return bound;
  }

  private Optional<Action> bound(KeyStroke stroke) {
    for (var entry : bindings.entrySet()) {
      for (KeyChord chord : entry.getValue()) {
        if (chord.matches(stroke)) {
          return Optional.of(entry.getKey());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The action after {@code first} bound to the same key, for a key that a tab's action leaves to the
   * input when it does not apply now (Ctrl+W on text deletes a word instead of closing the tab).
   */
  public Optional<Action> nextFor(KeyStroke stroke, Action first) {
    boolean past = false;
    for (var entry : bindings.entrySet()) {
      if (entry.getKey() == first) {
        past = true;
      } else if (past && entry.getValue().stream().anyMatch(chord -> chord.matches(stroke))) {
        return Optional.of(entry.getKey());
      }
    }
    return Optional.empty();
  }

  public List<KeyChord> chordsFor(Action action) {
    return bindings.getOrDefault(action, List.of());
  }
}
