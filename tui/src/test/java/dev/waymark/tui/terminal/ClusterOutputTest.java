package dev.waymark.tui.terminal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClusterOutputTest {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ClusterOutput.Sink sink = new ClusterOutput.Sink() {
    @Override
    public void write(byte[] bytes) {
      out.writeBytes(bytes);
    }

    @Override
    public void moveTo(int column, int row) {
      out.writeBytes(("<" + column + "," + row + ">").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void putChar(char c) {
      out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
    }
  };

  private String written() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void anEmojiOutsideTheBmpGoesOutAsItselfNotAsTwoQuestionMarks() throws Exception {
    ClusterOutput output = new ClusterOutput();
    output.put("a🚀b", sink);
    assertThat(written()).isEqualTo("a🚀b");
  }

  @Test
  void afterASequenceOfSeveralCodePointsTheCursorGoesWhereTheNextCellIs() throws Exception {
    ClusterOutput output = new ClusterOutput();
    output.movedTo(3, 1);
    output.put("👨‍👩‍👧", sink);
    output.put("x👍🏽", sink);
    assertThat(written()).isEqualTo("👨‍👩‍👧<5,1>x👍🏽<8,1>");
  }
}
