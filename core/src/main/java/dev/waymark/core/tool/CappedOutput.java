package dev.waymark.core.tool;

import java.nio.charset.StandardCharsets;

/**
 * A command's output, capped: the first half of the budget and the last half are kept, and the
 * text says how much was cut between them. The start usually says what ran, the end how it ended.
 * Thread-safe: one thread writes while another may read.
 */
final class CappedOutput {
  private final byte[] head;
  private final byte[] tail;
  private int headLength;
  private long tailWritten;
  private long total;

  CappedOutput(int maxBytes) {
    head = new byte[maxBytes / 2];
    tail = new byte[maxBytes - maxBytes / 2];
  }

  synchronized void write(byte[] bytes, int length) {
    int offset = 0;
    if (headLength < head.length) {
      int n = Math.min(length, head.length - headLength);
      System.arraycopy(bytes, 0, head, headLength, n);
      headLength += n;
      offset = n;
    }
    for (int i = offset; i < length; i++) {
      tail[(int) (tailWritten++ % tail.length)] = bytes[i];
    }
    total += length;
  }

  synchronized long total() {
    return total;
  }

  /**
   * The output as text for the chat and the model: colour codes and carriage returns taken out, other
   * control characters shown as symbols (raw, they would drive the terminal), and output that is
   * mostly not text named by its size instead of printed.
   */
  synchronized String text() {
    return ReadableOutput.of(raw(), total);
  }

  private String raw() {
    String start = new String(head, 0, headLength, StandardCharsets.UTF_8);
    if (tailWritten <= tail.length) {
      return start + new String(tail, 0, (int) tailWritten, StandardCharsets.UTF_8);
    }
    int from = (int) (tailWritten % tail.length);
    byte[] end = new byte[tail.length];
    System.arraycopy(tail, from, end, 0, tail.length - from);
    System.arraycopy(tail, 0, end, tail.length - from, from);
    long cut = total - headLength - tail.length;
    return start + "\n[... " + cut + " bytes of output cut ...]\n" + new String(end, StandardCharsets.UTF_8);
  }
}
