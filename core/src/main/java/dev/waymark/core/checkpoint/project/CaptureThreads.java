package dev.waymark.core.checkpoint.project;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The named executors of the change capture: the threads a scan walks the project on, and those
 * that register a watched tree's directories ahead of the walk. Each store's capture owns a set
 * and stops it when the store closes; a {@link ProjectWalker} given none uses the process's,
 * {@link #PROCESS} (the tools' walks never need it: they walk on the caller's thread). The only
 * place in the engine where a thread pool is static (the rules test {@code StaticStateTest}).
 * Threads are made as they are first needed and end after a minute idle.
 */
public final class CaptureThreads implements AutoCloseable {
  /** The process's threads, for a walker given none: never closed. */
  public static final CaptureThreads PROCESS = new CaptureThreads();

  private static final int REGISTRARS = 4;
  private static final long IDLE_SECONDS = 60;

  private final ForkJoinPool walkers;
  private final ThreadPoolExecutor registrars;

  public CaptureThreads() {
    // one per core: the common pool leaves one core out (for the caller, which here only waits), so on two cores it would walk on one
    walkers = new ForkJoinPool(Runtime.getRuntime().availableProcessors(), pool -> {
      var thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
      thread.setName("waymark-walk-" + thread.getPoolIndex());
      thread.setDaemon(true);
      return thread;
    }, null, false);
    registrars = new ThreadPoolExecutor(REGISTRARS, REGISTRARS, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        task -> {
          Thread thread = new Thread(task, "waymark-watch-register");
          thread.setDaemon(true);
          return thread;
        });
    registrars.allowCoreThreadTimeOut(true); // a store idle for long holds no thread
  }

  /** Where a scan's directories are listed and stat'ed, one task per directory. */
  ForkJoinPool walkers() {
    return walkers;
  }

  /** Where a watched tree's directories are registered ahead of the walk that lists them. */
  public ExecutorService registrars() {
    return registrars;
  }

  /** Stops the threads; a scan or registration under way is interrupted. */
  @Override
  public void close() {
    walkers.shutdownNow();
    registrars.shutdownNow();
  }
}
