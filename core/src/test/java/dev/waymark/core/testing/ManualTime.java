package dev.waymark.core.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time that moves only when the test says: handed to code that measures a wait or a window
 * ({@link #nanos}, {@link #millis}) so that the test advances it instead of sleeping it out. It
 * starts at the system's time, so it can stand beside timestamps the code reads elsewhere, and
 * counts its readings: the code reading it again is a signal that it came round its loop.
 */
public final class ManualTime {
  private final AtomicLong offsetNanos = new AtomicLong();
  private final AtomicLong reads = new AtomicLong();
  private final long startNanos = System.nanoTime();
  private final long startMillis = System.currentTimeMillis();

  /** As {@link System#nanoTime}, moved only by {@link #advance}. */
  public long nanos() {
    reads.incrementAndGet();
    return startNanos + offsetNanos.get();
  }

  /** As {@link System#currentTimeMillis}, moved only by {@link #advance}. */
  public long millis() {
    reads.incrementAndGet();
    return startMillis + offsetNanos.get() / 1_000_000;
  }

  public void advance(Duration by) {
    offsetNanos.addAndGet(by.toNanos());
  }

  /** How many times the code read this time. */
  public long reads() {
    return reads.get();
  }
}
