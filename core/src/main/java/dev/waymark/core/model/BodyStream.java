package dev.waymark.core.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A streamed response body read as an {@link InputStream} whose blocking reads another thread can
 * abort at once, and which gives up after a silence of {@code idleTimeout}.
 *
 * <p>Why not {@code BodyHandlers.ofInputStream()}: a read blocked in it wakes only on data or on an
 * interrupt of the reading thread, so a cancel from the UI thread could not stop a silent stream
 * without interrupting the agent's thread. Here the reader waits on a queue that {@link #abort}
 * feeds directly, and the HTTP subscription is cancelled so the connection is closed.
 */
final class BodyStream extends InputStream implements HttpResponse.BodySubscriber<BodyStream> {

  /** The stream was aborted (cancelled) while or before reading. */
  static final class AbortedException extends IOException {
    AbortedException() {
      super("aborted");
    }
  }

  /** Nothing arrived for the idle timeout. */
  static final class IdleTimeoutException extends IOException {
    IdleTimeoutException(String message) {
      super(message);
    }
  }

  private static final Object END = new Object();
  private static final Object ABORTED = new Object();

  private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private final long idleNanos;
  private final CompletableFuture<BodyStream> body = CompletableFuture.completedFuture(this);
  private volatile Flow.Subscription subscription;
  private volatile boolean aborted;
  // reader-thread state
  private Iterator<ByteBuffer> pending = Collections.emptyIterator();
  private ByteBuffer current;
  private boolean finished;

  BodyStream(Duration idleTimeout) {
    this.idleNanos = idleTimeout.toNanos();
  }

  @Override
  public CompletionStage<BodyStream> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (aborted) {
      s.cancel();
    } else {
      s.request(1);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    queue.add(item);
  }

  @Override
  public void onError(Throwable t) {
    queue.add(t);
  }

  @Override
  public void onComplete() {
    queue.add(END);
  }

  /** Wakes a blocked reader (it throws {@link AbortedException}) and drops the connection. Any thread. */
  void abort() {
    aborted = true;
    queue.add(ABORTED);
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    ByteBuffer buf = nextBuffer();
    if (buf == null) {
      return -1;
    }
    int n = Math.min(len, buf.remaining());
    buf.get(b, off, n);
    return n;
  }

  @SuppressWarnings("unchecked")
  private ByteBuffer nextBuffer() throws IOException {
    while (current == null || !current.hasRemaining()) {
      if (aborted) {
        throw new AbortedException();
      }
      if (pending.hasNext()) {
        current = pending.next();
        continue;
      }
      if (finished) {
        return null;
      }
      Object item;
      try {
        item = queue.poll(idleNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abort();
        throw new InterruptedIOException("interrupted while reading the response");
      }
      if (item == null) {
        throw new IdleTimeoutException(
            "no data for " + TimeUnit.NANOSECONDS.toSeconds(idleNanos) + " s");
      } else if (item == ABORTED) {
        throw new AbortedException();
      } else if (item == END) {
        finished = true;
      } else if (item instanceof Throwable t) {
        finished = true;
        throw t instanceof IOException io ? io : new IOException(t.getMessage(), t);
      } else {
        pending = ((List<ByteBuffer>) item).iterator();
        subscription.request(1);
      }
    }
    return current;
  }

  /** Releases the connection: a body not read to its end is cancelled, so the connection closes. */
  @Override
  public void close() {
    if (!finished) {
      abort();
    }
  }
}
