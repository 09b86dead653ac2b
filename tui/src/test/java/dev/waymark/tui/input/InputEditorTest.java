package dev.waymark.tui.input;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InputEditorTest {
  @Test
  void typingMovingAndDeletingNeverSplitsASurrogatePair() {
    InputEditor e = new InputEditor();
    e.insert("a😀b");
    e.left();
    e.backspace();
    assertThat(e.text()).isEqualTo("ab");
    e.home();
    e.delete();
    assertThat(e.text()).isEqualTo("b");
  }

  @Test
  void upAndDownMoveBetweenLinesKeepingTheColumn() {
    InputEditor e = new InputEditor();
    e.insert("first line\nsecond");
    assertThat(e.isOnLastRow()).isTrue();
    assertThat(e.isOnFirstRow()).isFalse();
    e.up();
    assertThat(e.caret()).isEqualTo(6);
    assertThat(e.isOnFirstRow()).isTrue();
    e.down();
    assertThat(e.caret()).isEqualTo(17);
  }

  @Test
  void readlineKillsAndWordMoves() {
    InputEditor e = new InputEditor();
    e.insert("alpha beta gamma");
    e.wordLeft();
    e.killToEnd();
    assertThat(e.text()).isEqualTo("alpha beta ");
    e.deleteWordBack();
    assertThat(e.text()).isEqualTo("alpha ");
    e.killToStart();
    assertThat(e.text()).isEmpty();
  }

  @Test
  void pastedWindowsLineEndingsBecomeNewlines() {
    InputEditor e = new InputEditor();
    e.insert("a\r\nb\rc");
    assertThat(e.text()).isEqualTo("a\nb\nc");
  }

  @Test
  void refilledTextIsReplacedByWhatIsTypedNextAndKeptByAMove() {
    InputEditor e = new InputEditor();
    e.refill("make a.txt");
    assertThat(e.selected()).isTrue();
    e.insert("/checkpoint redo");
    assertThat(e.text()).isEqualTo("/checkpoint redo");
    assertThat(e.selected()).isFalse();

    e.refill("make a.txt");
    e.backspace();
    assertThat(e.text()).as("a deleting key removes the whole refill").isEmpty();

    e.refill("make a.txt");
    e.left();
    e.insert("!");
    assertThat(e.text()).as("after a move it is text to edit").isEqualTo("make a.tx!t");
  }

  @Test
  void pastedTerminalColoursAndControlCharactersAreDroppedButTabsAndNewlinesKept() {
    InputEditor e = new InputEditor();
    e.insert("\u001b[31mred\u001b[0m\tcell\u0007\r\nnext \u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\ 🚀\u007f\u0008");
    assertThat(e.text()).isEqualTo("red\tcell\nnext link 🚀");
  }
}
