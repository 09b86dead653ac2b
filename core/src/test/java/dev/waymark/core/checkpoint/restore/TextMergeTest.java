package dev.waymark.core.checkpoint.restore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TextMergeTest {
  private static Optional<String> merge(String base, String ours, String theirs) {
    return TextMerge.merge(base.getBytes(UTF_8), ours.getBytes(UTF_8), theirs.getBytes(UTF_8))
        .map(bytes -> new String(bytes, UTF_8));
  }

  @Test
  void changesToDistantLinesBothSurvive() {
    assertThat(merge("1\n2\n3\n4\n5\n", "1\n2\n3\n4\nFIVE\n", "ONE\n2\n3\n4\n5\n")).contains("ONE\n2\n3\n4\nFIVE\n");
  }

  @Test
  void changesToTheSameLineClash() {
    assertThat(merge("1\n2\n3\n", "1\nours\n3\n", "1\ntheirs\n3\n")).isEmpty();
  }

  @Test
  void aMissingFinalNewlineIsKept() {
    assertThat(merge("a\nb\nc", "A\nb\nc", "a\nb\nC")).contains("A\nb\nC");
  }

  @Test
  void anUnterminatedLastLineFollowedByAddedLinesGetsItsNewline() {
    assertThat(merge("a\nb\nc\nd\ne", "a\nb\nc\nd\ne\nadded\n", "A\nb\nc\nd\ne")).contains("A\nb\nc\nd\ne\nadded\n");
  }

  @Test
  void windowsLineEndingsAreKeptByteForByte() {
    assertThat(merge("1\r\n2\r\n3\r\n4\r\n", "1\r\n2\r\n3\r\nFOUR\r\n", "ONE\r\n2\r\n3\r\n4\r\n"))
        .contains("ONE\r\n2\r\n3\r\nFOUR\r\n");
  }

  @Test
  void binaryContentIsNeverMerged() {
    assertThat(merge("a\0b\n", "a\0b\nx\n", "y\na\0b\n")).isEmpty();
  }
}
