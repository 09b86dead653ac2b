package dev.waymark.core.testing;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.protocol.Event;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A tab's events as a test sees them: every one so far (to assert on, as a list) and a queue read
 * in order by {@link #await}, which returns the next event of a kind once the tab sends it; the
 * wait is on the event itself, with {@link Eventually#TIMEOUT} as the hang guard.
 */
public final class TabEvents implements Iterable<Event> {
  private final List<Event> seen = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Event> unread = new LinkedBlockingQueue<>();

  private TabEvents() {}

  /** The events {@code session} sends from now on. */
  public static TabEvents of(TabSession session) {
    TabEvents events = new TabEvents();
    session.subscribe(events.seen::add);
    session.subscribe(events.unread::add);
    return events;
  }

  /** The next unread event of {@code type}; the unread events before it are passed over. */
  public <T extends Event> T await(Class<T> type) throws InterruptedException {
    return await(type, e -> true);
  }

  /** The next unread event of {@code type} that is {@code matching}; those before it are passed over. */
  public <T extends Event> T await(Class<T> type, Predicate<? super T> matching) throws InterruptedException {
    long end = System.nanoTime() + Eventually.TIMEOUT.toNanos();
    while (System.nanoTime() - end < 0) {
      Event e = unread.poll(50, TimeUnit.MILLISECONDS);
      if (type.isInstance(e) && matching.test(type.cast(e))) {
        return type.cast(e);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " within " + Eventually.TIMEOUT.toSeconds()
        + " s; events: " + seen);
  }

  /** Every event so far, in the order sent. */
  public Stream<Event> stream() {
    return seen.stream();
  }

  @Override
  public Iterator<Event> iterator() {
    return seen.iterator();
  }

  @Override
  public String toString() {
    return seen.toString();
  }
}
