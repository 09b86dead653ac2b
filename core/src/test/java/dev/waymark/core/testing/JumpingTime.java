package dev.waymark.core.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system's time, moved ahead when the test says: handed to code that measures a wait or a
 * window ({@link #nanos}, {@link #millis}) so that the test jumps over the window instead of
 * sleeping it out. It runs on between jumps as the system's does (code that reads it twice sees
 * time pass, as it would), and counts its readings: the code reading it again is a signal that it
 * came round its loop.
 */
public final class JumpingTime {
  private final AtomicLong jumpedNanos = new AtomicLong();
  private final AtomicLong reads = new AtomicLong();

  /** As {@link System#nanoTime}, plus the jumps so far. */
  public long nanos() {
    reads.incrementAndGet();
    return System.nanoTime() + jumpedNanos.get();
  }

  /** As {@link System#currentTimeMillis}, plus the jumps so far. */
  public long millis() {
    reads.incrementAndGet();
    return System.currentTimeMillis() + jumpedNanos.get() / 1_000_000;
  }

  public void jump(Duration ahead) {
    jumpedNanos.addAndGet(ahead.toNanos());
  }

  /** How many times the code read this time. */
  public long reads() {
    return reads.get();
  }
}
