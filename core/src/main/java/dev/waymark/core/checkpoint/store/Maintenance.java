package dev.waymark.core.checkpoint.store;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Packing the shadow repository now and then, when the store is quiet: counted in checkpoints,
 * timed on its own daemon thread, run on the repository's writer thread.
 */
public final class Maintenance implements AutoCloseable {
  private static final int MAINTAIN_EVERY = 64;

  private final ShadowRepository repo;
  private final AtomicInteger checkpointsSinceMaintenance = new AtomicInteger();
  private final AtomicBoolean maintenanceScheduled = new AtomicBoolean();
  private final ScheduledExecutorService maintenanceTimer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "waymark-maintenance-timer");
    t.setDaemon(true);
    return t;
  });
  private volatile long lastWriteNanos = System.nanoTime();
  private volatile Duration quietPeriod = Duration.ofSeconds(3);

  public Maintenance(ShadowRepository repo) {
    this.repo = repo;
  }

  /**
   * Called after each checkpoint commit. Every {@value #MAINTAIN_EVERY} checkpoints, refs and
   * objects are packed, but only once no checkpoint has been written for a quiet period: packing
   * runs on the writer thread, and would otherwise hold up the turns of a busy tab.
   */
  public void checkpointWritten() {
    lastWriteNanos = System.nanoTime();
    if (checkpointsSinceMaintenance.incrementAndGet() >= MAINTAIN_EVERY && !maintenanceScheduled.getAndSet(true)) {
      scheduleMaintenance();
    }
  }

  private void scheduleMaintenance() {
    try {
      maintenanceTimer.schedule(() -> {
        if (System.nanoTime() - lastWriteNanos < quietPeriod.toNanos()) {
          scheduleMaintenance();
          return;
        }
        checkpointsSinceMaintenance.set(0);
        maintenanceScheduled.set(false);
        repo.writeLater("maintenance", () -> {
          try {
            repo.maintain();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
      }, quietPeriod.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // the store is closing; the next session packs
    }
  }

  /** How long the store must be idle before it packs (shorter in tests). */
  public void quietPeriod(Duration quiet) {
    this.quietPeriod = quiet;
  }

  @Override
  public void close() {
    maintenanceTimer.shutdownNow();
  }
}
