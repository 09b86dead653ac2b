package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A command's output as the chat and the model read it: text, never raw bytes that drive the terminal. */
class CappedOutputTest {
  private static String read(byte[] bytes) {
    CappedOutput out = new CappedOutput(10_000);
    out.write(bytes, bytes.length);
    return out.text();
  }

  @Test
  void binaryOutputIsNamedBySizeNotPrinted() {
    byte[] binary = new byte[600];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) (i * 37);
    }
    assertThat(read(binary)).isEqualTo("[binary output: 600 bytes, not shown]");
  }

  @Test
  void colourCodesAndCarriageReturnsAreTakenOutAndOtherControlCharactersShown() {
    String coloured = "\u001b[31mred\u001b[0m\r\n50%\r100%\nbell\u0007 tab\there\n";
    assertThat(read(coloured.getBytes(StandardCharsets.UTF_8))).isEqualTo("red\n50%\n100%\nbell\u2407 tab\there\n");
  }

  @Test
  void ordinaryTextIsLeftAsItIs() {
    String text = "café — ok\n\tindented\n";
    assertThat(read(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(text);
  }
}
