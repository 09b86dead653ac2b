package dev.waymark.tui.terminal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyMapTest {
  @Test
  void chordsParseToACanonicalForm() {
    assertThat(KeyChord.parse("Ctrl+B")).hasToString("ctrl+b");
    assertThat(KeyChord.parse("alt+Left")).hasToString("alt+left");
    assertThat(KeyChord.parse("ctrl+pagedown")).hasToString("ctrl+pgdn");
    assertThat(KeyChord.parse("shift+tab")).hasToString("shift+tab");
    assertThat(KeyChord.parse("escape")).hasToString("esc");
  }

  @Test
  void badChordsSayWhatIsWrong() {
    assertThatThrownBy(() -> KeyChord.parse("hyper+x")).hasMessageContaining("Unknown modifier \"hyper\"");
    assertThatThrownBy(() -> KeyChord.parse("ctrl+nope")).hasMessageContaining("Unknown key \"nope\"");
    assertThatThrownBy(() -> KeyChord.parse("ctrl+")).hasMessageContaining("No key");
    assertThatThrownBy(() -> KeyChord.parse(" ")).hasMessageContaining("empty");
  }

  @Test
  void settingsReplaceOrRemoveABinding() {
    KeyMap keys = KeyMap.defaults().withOverrides(Map.of("view-back", List.of("alt+b"), "view-forward", List.of()));
    assertThat(keys.actionFor(new KeyStroke('b', false, true))).contains(Action.VIEW_BACK);
    assertThat(keys.actionFor(new KeyStroke('b', true, false))).isEmpty();
    assertThat(keys.actionFor(new KeyStroke('f', true, false))).isEmpty();
    assertThat(keys.actionFor(new KeyStroke(KeyType.ArrowRight, false, true))).isEmpty();
    assertThat(keys.chordsFor(Action.VIEW_FORWARD)).isEmpty();
  }

  @Test
  void unknownActionsAndBadKeysInSettingsAreNamed() {
    assertThatThrownBy(() -> KeyMap.defaults().withOverrides(Map.of("fly", List.of("ctrl+x"))))
        .hasMessageContaining("Unknown action \"fly\"").hasMessageContaining("view-back");
    assertThatThrownBy(() -> KeyMap.defaults().withOverrides(Map.of("new-tab", List.of("ctrl+nope"))))
        .hasMessageContaining("keyBindings.new-tab").hasMessageContaining("nope");
  }

  @Test
  void plainCharactersAreNotActions() {
    assertThat(KeyMap.defaults().actionFor(new KeyStroke('b', false, false))).isEmpty();
  }

  @Test
  void editingKeysAreActionsThatUserBindingsWinOver() {
    KeyMap keys = KeyMap.defaults();
    assertThat(keys.actionFor(new KeyStroke(KeyType.Home))).contains(Action.LINE_START);
    assertThat(keys.actionFor(new KeyStroke('a', true, false))).contains(Action.LINE_START);
    assertThat(keys.actionFor(new KeyStroke(KeyType.Backspace, false, true))).contains(Action.DELETE_WORD_BACK);
    assertThat(keys.actionFor(new KeyStroke(KeyType.ArrowLeft, false, false, true))).as("Shift+← as ←").contains(Action.CURSOR_LEFT);
    KeyMap rebound = keys.withOverrides(Map.of("new-tab", List.of("ctrl+a")));
    assertThat(rebound.actionFor(new KeyStroke('a', true, false))).contains(Action.NEW_TAB);
    assertThat(Action.valueOf("KILL_TO_END").settingName()).isEqualTo("kill-to-end");
  }
}
