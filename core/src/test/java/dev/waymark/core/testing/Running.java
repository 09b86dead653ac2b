package dev.waymark.core.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Work a test starts on a thread of its own, so that the test can wait until that thread is in a
 * given method (waiting for a lock, for the shell slot, for a model's answer): the signal that it
 * got there, where a sleep would only guess.
 */
public final class Running<T> {
  private final FutureTask<T> task;
  private final Thread thread;

  private Running(Callable<T> work, String name) {
    this.task = new FutureTask<>(work);
    this.thread = new Thread(task, name);
    thread.setDaemon(true);
  }

  public static <T> Running<T> start(String name, Callable<T> work) {
    Running<T> running = new Running<>(work, name);
    running.thread.start();
    return running;
  }

  /** Whether the thread is now inside a method whose class or name contains {@code frame}. */
  public boolean isIn(String frame) {
    for (StackTraceElement element : thread.getStackTrace()) {
      if ((element.getClassName() + "." + element.getMethodName()).contains(frame)) {
        return true;
      }
    }
    return false;
  }

  /** Returns once the thread is inside {@code frame} (for example {@code "CommandSlot.take"}). */
  public Running<T> awaitIn(String frame) {
    Eventually.until(thread.getName() + " is in " + frame, () -> isIn(frame) || task.isDone());
    if (task.isDone()) {
      throw new AssertionError(thread.getName() + " ended before it reached " + frame + ": " + outcome());
    }
    return this;
  }

  public FutureTask<T> future() {
    return task;
  }

  public boolean isDone() {
    return task.isDone();
  }

  public T get(long seconds) throws InterruptedException, ExecutionException, TimeoutException {
    return task.get(seconds, TimeUnit.SECONDS);
  }

  private String outcome() {
    try {
      return String.valueOf(task.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    } catch (ExecutionException e) {
      return String.valueOf(e.getCause());
    }
  }
}
