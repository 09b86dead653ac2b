package dev.waymark.core.model;

import java.util.ArrayList;
import java.util.List;

/** A one-way switch that aborts what is registered on it: an HTTP exchange, a shell command. */
public final class Cancellation {
  private final List<Runnable> actions = new ArrayList<>();
  private boolean cancelled;

  public void cancel() {
    List<Runnable> toRun;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      toRun = new ArrayList<>(actions);
      actions.clear();
    }
    toRun.forEach(Runnable::run);
  }

  public synchronized boolean isCancelled() {
    return cancelled;
  }

  /** Runs {@code action} on cancel, or now if already cancelled. */
  public void onCancel(Runnable action) {
    synchronized (this) {
      if (!cancelled) {
        actions.add(action);
        return;
      }
    }
    action.run();
  }
}
