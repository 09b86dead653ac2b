package dev.waymark.core.tool;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A running command's output on its way to the front ends. The reader thread {@link #write}s what
 * it reads; the tool's own thread {@link #send}s what gathered, once per frame while it waits for the
 * command and once at the end, so the text arrives in order and before the call's result, and a
 * flood of output is a few updates rather than one per read.
 */
final class LiveOutput {
  /** What one update may carry; past it the oldest text is left out (the call's result keeps its own, capped, copy). */
  static final int MAX_PENDING = 1 << 20;
  /** How long the tool waits between updates: about ten frames a second. */
  static final long FRAME_MILLIS = 100;

  private final Consumer<String> sink;
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
  /** The start of a character split between two reads. */
  private ByteBuffer carry = ByteBuffer.allocate(0);
  private final StringBuilder pending = new StringBuilder();
  private long leftOut;

  LiveOutput(Consumer<String> sink) {
    this.sink = sink;
  }

  /** Called by the reader thread with each read. */
  synchronized void write(byte[] bytes, int length) {
    ByteBuffer in = ByteBuffer.allocate(carry.remaining() + length);
    in.put(carry).put(bytes, 0, length).flip();
    CharBuffer out = CharBuffer.allocate(in.remaining() + 1);
    decoder.decode(in, out, false);
    carry = in.slice();
    pending.append(out.flip());
    if (pending.length() > MAX_PENDING) {
      int drop = pending.length() - MAX_PENDING;
      leftOut += drop;
      pending.delete(0, drop);
    }
  }

  /** Sends what gathered since the last update, if anything; called on the tool's thread only. */
  void send() {
    String text;
    synchronized (this) {
      if (pending.length() == 0) {
        return;
      }
      text = (leftOut > 0 ? "[… " + leftOut + " characters of output not shown live …]\n" : "") + pending;
      pending.setLength(0);
      leftOut = 0;
    }
    sink.accept(text);
  }
}
