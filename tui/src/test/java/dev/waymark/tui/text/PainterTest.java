package dev.waymark.tui.text;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.TextColor;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.virtual.DefaultVirtualTerminal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PainterTest {
  DefaultVirtualTerminal terminal;
  TerminalScreen screen;

  @BeforeEach
  void open() throws Exception {
    terminal = new DefaultVirtualTerminal(new TerminalSize(12, 2));
    screen = new TerminalScreen(terminal);
    screen.startScreen();
  }

  private String row(int row) {
    StringBuilder b = new StringBuilder();
    for (int col = 0; col < 12; col++) {
      var c = terminal.getCharacter(col, row);
      b.append(c.getCharacterString());
      if (c.isDoubleWidth()) {
        col++;
      }
    }
    return b.toString();
  }

  @Test
  void wideCharactersTakeTwoCellsAndShiftNothingAfterThem() throws Exception {
    int used = Painter.paint(screen.newTextGraphics(), 0, 0, Line.plain("漢a😀b"), 12);
    screen.refresh();
    assertThat(used).isEqualTo(6);
    assertThat(row(0)).startsWith("漢a😀b ");
    assertThat(terminal.getCharacter(5, 0).getCharacterString()).isEqualTo("b");
  }

  @Test
  void aWideCharacterThatDoesNotFitAtTheEdgeBecomesASpace() throws Exception {
    int used = Painter.paint(screen.newTextGraphics(), 0, 1, Line.plain("abc漢"), 4);
    screen.refresh();
    assertThat(used).isEqualTo(4);
    assertThat(row(1)).startsWith("abc ");
    assertThat(terminal.getCharacter(4, 1).getCharacterString()).isEqualTo(" ");
  }

  @Test
  void emojiSequencesLanternaCannotKeepWholeStillTakeTwoColumns() throws Exception {
    int used = Painter.paint(screen.newTextGraphics(), 0, 0, Line.plain("👍🏽x👨‍👩‍👧y"), 12);
    screen.refresh();
    assertThat(used).isEqualTo(6);
    // read from the screen: Lanterna's virtual terminal splits a sequence again (the real one is ClusterOutput's)
    assertThat(screen.getFrontCharacter(2, 0).getCharacterString()).isEqualTo("x");
    assertThat(screen.getFrontCharacter(5, 0).getCharacterString()).isEqualTo("y");
  }

  @Test
  void anEmojiSequenceIsKeptWholeInItsCellSoItIsSentAsItself() throws Exception {
    Painter.paint(screen.newTextGraphics(), 0, 0, Line.plain("👍🏽x👨‍👩‍👧y🇫🇷"), 12);
    assertThat(screen.getBackCharacter(0, 0).getCharacterString()).isEqualTo("👍🏽");
    assertThat(screen.getBackCharacter(3, 0).getCharacterString()).isEqualTo("👨‍👩‍👧");
    assertThat(screen.getBackCharacter(3, 0).isDoubleWidth()).isTrue();
    assertThat(screen.getBackCharacter(5, 0).getCharacterString()).isEqualTo("y");
    assertThat(screen.getBackCharacter(6, 0).getCharacterString()).isEqualTo("🇫🇷");
  }

  @Test
  void tonesBecomeColours() throws Exception {
    Painter.paint(screen.newTextGraphics(), 0, 0, Line.of(Span.of("+", Tone.ADDED), Span.of("-", Tone.REMOVED)), 12);
    screen.refresh();
    assertThat(terminal.getCharacter(0, 0).getForegroundColor()).isEqualTo(TextColor.ANSI.GREEN);
    assertThat(terminal.getCharacter(1, 0).getForegroundColor()).isEqualTo(TextColor.ANSI.RED);
  }
}
