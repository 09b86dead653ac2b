package dev.waymark.tui.terminal;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.DefaultKeyDecodingProfile;
import com.googlecode.lanterna.input.InputDecoder;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import dev.waymark.tui.input.InputEditor;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Raw terminal bytes through Lanterna's decoder with our patterns, then our translator: what the UI receives. */
class KeyDecodingTest {
  private static List<UiInput> decode(String bytes) throws Exception {
    InputDecoder decoder = new InputDecoder(new InputStreamReader(
        new ByteArrayInputStream(bytes.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
    decoder.addProfile(new DefaultKeyDecodingProfile());
    decoder.addProfile(() -> List.of(new BracketedPaste(), new LineKeys(), new FocusReport()));
    InputTranslator translator = new InputTranslator();
    List<UiInput> inputs = new ArrayList<>();
    for (KeyStroke stroke = decoder.getNextCharacter(true); stroke != null && stroke.getKeyType() != KeyType.EOF;
        stroke = decoder.getNextCharacter(true)) {
      translator.translate(stroke).ifPresent(inputs::add);
    }
    return inputs;
  }

  @Test
  void theTerminalsFocusReportsAreFocusInputsNotKeys() throws Exception {
    assertThat(decode("a\u001b[Ob\u001b[I")).containsExactly(
        new UiInput.Text("a"), new UiInput.Focus(false), new UiInput.Text("b"), new UiInput.Focus(true));
  }

  @Test
  void aBracketedPasteIsOneInputWhoseLineBreaksNeverSubmit() throws Exception {
    assertThat(decode("x\u001b[200~ab\rcd\u001b[201~y")).containsExactly(
        new UiInput.Text("x"), new UiInput.Paste("ab\ncd"), new UiInput.Text("y"));
  }

  @Test
  void aPasteOfColouredTerminalOutputReachesTheInputAsItsText() throws Exception {
    List<UiInput> inputs = decode("\u001b[200~\u001b[31mred\u001b[0m\tok \u001b[1;32mgreen\u001b[m\u001b[201~");
    assertThat(inputs).hasSize(1);
    var editor = new InputEditor();
    editor.insert(((UiInput.Paste) inputs.get(0)).text());
    assertThat(editor.text()).isEqualTo("red\tok green");
  }

  @Test
  void anEmojiTypedArrivesAsOneCharacter() throws Exception {
    assertThat(decode("😀")).containsExactly(new UiInput.Text("😀"));
  }

  @Test
  void enterAndCtrlJAreDifferentKeys() throws Exception {
    List<UiInput> inputs = decode("\r\n");
    KeyMap keys = KeyMap.defaults();
    assertThat(inputs).hasSize(2);
    assertThat(keys.actionFor(((UiInput.Key) inputs.get(0)).stroke())).contains(Action.SUBMIT);
    assertThat(keys.actionFor(((UiInput.Key) inputs.get(1)).stroke())).contains(Action.NEWLINE);
  }

  @Test
  void browsingKeysDecodeToTheirActions() throws Exception {
    KeyMap keys = KeyMap.defaults();
    assertThat(action(keys, "\u0002")).contains(Action.VIEW_BACK);
    assertThat(action(keys, "\u0006")).contains(Action.VIEW_FORWARD);
    assertThat(action(keys, "\u001b[1;3D")).contains(Action.VIEW_BACK);
    assertThat(action(keys, "\u001b[1;3C")).contains(Action.VIEW_FORWARD);
    assertThat(action(keys, "\u001b[5;5~")).contains(Action.PREVIOUS_TAB);
    assertThat(action(keys, "\u001b2")).contains(Action.TAB_2);
    assertThat(action(keys, "\u001b\r")).contains(Action.NEWLINE);
    assertThat(action(keys, "\u0003")).contains(Action.CLEAR_OR_EXIT);
  }

  private static Optional<Action> action(KeyMap keys, String bytes) throws Exception {
    List<UiInput> inputs = decode(bytes);
    assertThat(inputs).hasSize(1);
    return keys.actionFor(((UiInput.Key) inputs.get(0)).stroke());
  }
}
