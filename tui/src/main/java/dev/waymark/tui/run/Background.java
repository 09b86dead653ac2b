package dev.waymark.tui.run;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Work the interface must not wait for (a server asked for its models), on a daemon thread; what it
 * gives back is handed to {@code post}, which runs it on the interface's thread.
 */
public final class Background {
  private final Consumer<Runnable> post;
  private ExecutorService threads; // made at the first use

  public Background(Consumer<Runnable> post) {
    this.post = post;
  }

  /** Runs {@code work}; then {@code then} gets its result, or null and what it threw, on the interface's thread. */
  public synchronized <T> void run(Callable<T> work, BiConsumer<T, Exception> then) {
    if (threads == null) {
      threads = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "waymark-ui-background");
        t.setDaemon(true);
        return t;
      });
    }
    threads.submit(() -> {
      try {
        T result = work.call();
        post.accept(() -> then.accept(result, null));
      } catch (Exception e) {
        post.accept(() -> then.accept(null, e));
      }
    });
  }
}
