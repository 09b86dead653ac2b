package dev.waymark.core.testing;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Waits for a condition the code under test makes true (a file written, a job ended, a frame
 * drawn) instead of sleeping for a guessed time: it checks every few milliseconds and fails with
 * what it waited for once {@link #TIMEOUT} has passed. The timeout is a hang guard, never a
 * measure: a test that passes only because a condition became true late enough is still wrong.
 */
public final class Eventually {
  /** Long enough for a loaded CI machine; reached only when the awaited thing never happens. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static final long POLL_MILLIS = 10;

  /** A condition that may throw (reading a file, asking a process). */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /** An assertion that may throw while it does not hold yet. */
  @FunctionalInterface
  public interface Check {
    void run() throws Exception;
  }

  private Eventually() {}

  /** Returns once {@code condition} holds; fails naming {@code what} after {@link #TIMEOUT}. */
  public static void until(String what, Condition condition) {
    until(what, TIMEOUT, condition);
  }

  /** As {@link #until(String, Condition)}, with its own hang guard. */
  public static void until(String what, Duration timeout, Condition condition) {
    until(what, timeout, Duration.ofMillis(POLL_MILLIS), condition);
  }

  /**
   * As {@link #until(String, Duration, Condition)}, asking every {@code every}: for a condition
   * that costs a process to ask (a terminal's screen through tmux) or that acts (a key pressed).
   */
  public static void until(String what, Duration timeout, Duration every, Condition condition) {
    long end = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        if (condition.holds()) {
          return;
        }
        last = null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for: " + what, e);
      } catch (Exception e) {
        last = e; // e.g. the file is not there yet: asked again
      }
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("waited " + timeout.toMillis() + " ms for: " + what, last);
      }
      pause(what, every.toMillis());
    }
  }

  /** Returns once {@code check} passes; fails with its last failure after {@link #TIMEOUT}. */
  public static void passes(Check check) {
    long end = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try {
        check.run();
        return;
      } catch (AssertionError | Exception e) {
        if (System.nanoTime() - end > 0) {
          throw new AssertionError("still failing after " + TIMEOUT.toMillis() + " ms", e);
        }
      }
      pause("a check to pass", POLL_MILLIS);
    }
  }

  /** The value {@code supplier} gives once it is not null. */
  public static <T> T value(String what, Supplier<T> supplier) {
    Object[] seen = new Object[1];
    until(what, () -> (seen[0] = supplier.get()) != null);
    @SuppressWarnings("unchecked")
    T found = (T) seen[0];
    return found;
  }

  private static void pause(String what, long millis) {
    try {
      Thread.sleep(millis); // the poll's own interval: the one sleep behind every wait here
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for: " + what, e);
    }
  }
}
