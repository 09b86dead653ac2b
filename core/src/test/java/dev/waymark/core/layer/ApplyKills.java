package dev.waymark.core.layer;

import java.util.concurrent.atomic.AtomicInteger;

/** Stops the next apply after its {@code n}th change to the project, as a kill there would (for tests outside this package). */
public final class ApplyKills {
  /** What the apply throws where it is "killed". */
  public static final class Killed extends RuntimeException {
    Killed(int step) {
      super("killed after step " + step);
    }
  }

  private ApplyKills() {}

  /** From now on, the {@code n}th change an apply makes is its last; returns what puts the apply back as it was. */
  public static AutoCloseable after(int n) {
    AtomicInteger made = new AtomicInteger();
    LayerApply.afterStep = () -> {
      int step = made.incrementAndGet();
      if (step == n) {
        throw new Killed(step);
      }
    };
    return () -> LayerApply.afterStep = () -> {};
  }
}
