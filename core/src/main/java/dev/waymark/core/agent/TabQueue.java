package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tab's one ordered queue, and the order of its events. Commands run one at a time on the queue
 * thread, which holds the tab's tree; a turn borrows the tree on the turn thread, and the commands
 * that need it wait, in order, until the turn gives it back. Anything a command throws becomes an
 * {@link Event.Error}. The events a command emits are sent once it is done and {@code publish} has
 * put out the snapshot they describe, on one dispatcher thread, in order.
 */
final class TabQueue {
  private static final Logger LOG = LoggerFactory.getLogger(TabQueue.class);

  private final ExecutorService queue;
  private final ExecutorService turns;
  private final ExecutorService dispatcher;
  private final List<Consumer<Event>> subscribers = new CopyOnWriteArrayList<>();
  private final Runnable publish;
  private volatile Thread queueThread;

  // confined to the queue thread
  private boolean turnRunning;
  private final Deque<Held> held = new ArrayDeque<>();
  private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
  private List<Event> buffered; // the events of the command running now

  /** A queued command: its name, its work, and the id its submission got (0: none, e.g. late steering). */
  private record Held(String name, Runnable work, long submission) {}

  /** The id of the submission being dispatched now; set by the submitting thread around its dispatch. */
  private long submitting;
  /** The id of the command the queue thread runs now. */
  private long running;

  /** {@code publish} puts out the tab's snapshot; it runs on the thread that holds the tree. */
  TabQueue(String tabId, Runnable publish) {
    this.publish = publish;
    this.queue = Executors.newSingleThreadExecutor(r -> queueThread = daemon(r, "waymark-tab-" + tabId));
    this.turns = Executors.newSingleThreadExecutor(r -> daemon(r, "waymark-turn-" + tabId));
    this.dispatcher = Executors.newSingleThreadExecutor(r -> daemon(r, "waymark-events-" + tabId));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  void subscribe(Consumer<Event> subscriber) {
    subscribers.add(subscriber);
  }

  boolean onQueueThread() {
    return Thread.currentThread() == queueThread;
  }

  /** Queues {@code work}, which needs the tree: it runs in order, after the running turn if there is one. */
  void later(String name, Runnable work) {
    Held next = new Held(name, work, submitting);
    queue.execute(() -> {
      if (turnRunning || !held.isEmpty()) {
        held.add(next);
      } else {
        run(next, true);
      }
    });
  }

  /** Queues {@code work}, which reads only the snapshot: it runs in order, even while a turn runs. */
  void now(String name, Runnable work) {
    Held now = new Held(name, work, submitting);
    queue.execute(() -> run(now, false));
  }

  /** Called by the submitting thread, under the tab's submit lock, around one command's dispatch. */
  void submitting(long id) {
    submitting = id;
  }

  private void run(Held command, boolean touchesTree) {
    buffered = new ArrayList<>();
    running = command.submission();
    try {
      command.work().run();
    } catch (CheckpointException e) {
      emit(new Event.Error(ErrorKinds.of(e), e.getMessage()));
    } catch (RuntimeException e) {
      LOG.error("{} failed", command.name(), e);
      emit(new Event.Error(ErrorKind.INTERNAL, command.name() + " failed: " + (e.getMessage() == null ? e.toString() : e.getMessage())));
    } finally {
      try {
        if (touchesTree && !turnRunning) {
          publish.run();
        }
      } catch (RuntimeException e) {
        LOG.error("the tab's snapshot could not be taken after {}", command.name(), e);
        emit(new Event.Error(ErrorKind.STORE_IO, "The tab could not be read after " + command.name() + ": " + e.getMessage()));
      }
      flush();
    }
  }

  /**
   * From a command on the queue thread: publishes, sends the command's events so far, and lends
   * the tree to {@code turn} on the turn thread. Commands that need the tree wait until it ends;
   * the prompt it returns (steering that came too late) is then sent first.
   */
  void lendTree(Supplier<Optional<String>> turn, Consumer<String> sendNext) {
    publish.run();
    flush();
    turnRunning = true;
    turns.execute(() -> {
      Optional<String> next = Optional.empty();
      try {
        next = turn.get();
      } finally {
        Optional<String> prompt = next;
        try {
          queue.execute(() -> treeReturned(prompt, sendNext));
        } catch (RejectedExecutionException closed) {
          LOG.debug("the tab closed as a turn ended");
        }
      }
    });
  }

  private void treeReturned(Optional<String> next, Consumer<String> sendNext) {
    turnRunning = false;
    next.ifPresent(text -> held.add(new Held("SendPrompt", () -> sendNext.accept(text), 0)));
    while (!turnRunning && !held.isEmpty()) {
      run(held.poll(), true);
    }
    completeIdleWaiters();
  }

  /** Completes once every command submitted so far has been handled and its events delivered. */
  Future<?> idle() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    queue.execute(() -> {
      idleWaiters.add(done);
      completeIdleWaiters();
    });
    return done;
  }

  private void completeIdleWaiters() {
    if (turnRunning || !held.isEmpty()) {
      return;
    }
    for (CompletableFuture<Void> waiter : idleWaiters) {
      dispatcher.execute(() -> waiter.complete(null)); // after the events before it
    }
    idleWaiters.clear();
  }

  void emit(Event event) {
    if (buffered != null && onQueueThread()) {
      buffered.add(event instanceof Event.Error error && error.submission().isEmpty() && running != 0
          ? new Event.Error(error.kind(), error.message(), OptionalLong.of(running)) // the command that failed
          : event);
      return;
    }
    try {
      dispatcher.execute(() -> {
        for (Consumer<Event> subscriber : subscribers) {
          try {
            subscriber.accept(event);
          } catch (RuntimeException e) {
            LOG.warn("an event subscriber failed on {}", event, e);
          }
        }
      });
    } catch (RejectedExecutionException closed) {
      LOG.debug("the tab is closed; dropped {}", event);
    }
  }

  private void flush() {
    List<Event> events = buffered;
    buffered = null;
    if (events != null) {
      events.forEach(this::emit);
    }
  }

  /** Waits a while for what is queued, then stops the threads. */
  /** Stops the queue after what it holds; returns whether every command and turn ended. */
  boolean close() {
    try {
      idle().get(10, TimeUnit.SECONDS);
    } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
      LOG.debug("closing a tab without waiting for its queue", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    shutDown(queue);
    shutDown(turns);
    shutDown(dispatcher);
    return queue.isTerminated() && turns.isTerminated();
  }

  private static void shutDown(ExecutorService executor) {
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
