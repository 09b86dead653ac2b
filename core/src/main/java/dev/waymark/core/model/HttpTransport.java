package dev.waymark.core.model;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part both HTTP clients share: one streaming POST with retries and cancellation. Providers
 * differ only in the request body and the stream parser. What a failure means and how it is said
 * is {@link HttpFailures}'s concern; telling a wrong server, {@link WrongServer}'s.
 *
 * <p>Retries happen only while nothing reached the listener (a 429, a 5xx, a connection failure, an
 * in-stream overload): after the first token a retry would show the user a second answer.
 */
final class HttpTransport {
  private static final Logger log = LoggerFactory.getLogger(HttpTransport.class);
  /** Parses one successful streamed body; {@code contentType} is the header's value or "". */
  interface StreamReader<T> {
    T read(InputStream body, String contentType, Progress progress) throws IOException;
  }

  /** Whether anything reached the listener yet; after that, failures are not retried. */
  static final class Progress {
    private volatile boolean delivered;

    void delivered() {
      delivered = true;
    }

    boolean any() {
      return delivered;
    }
  }

  private final HttpClient client;
  private final HttpOptions options;
  private final UnaryOperator<Duration> actualDelay;
  private final ServerTarget target;
  private final String apiKey;
  private final WrongServer wrongServer;
  private final HttpFailures failures;

  /**
   * @param actualDelay maps a computed retry delay to the one really waited (tests shrink it and
   *     record what was asked for); the identity in production
   */
  HttpTransport(ServerTarget target, String apiKey, HttpOptions options, UnaryOperator<Duration> actualDelay) {
    this.target = target;
    this.apiKey = apiKey;
    this.options = options;
    this.actualDelay = actualDelay;
    this.wrongServer = new WrongServer(target);
    this.failures = new HttpFailures(target, apiKey, options, wrongServer);
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(options.connectTimeout())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** For the stream parsers: an answer that shows the base URL is not the model API. */
  WrongServer wrongServer() {
    return wrongServer;
  }

  /** For the stream parsers: an error the server put in its stream. */
  HttpFailures failures() {
    return failures;
  }

  /**
   * POSTs {@code body} as JSON to {@code uri} and hands the streamed answer to {@code reader},
   * retrying what is worth retrying.
   *
   * @param model only for error messages
   */
  <T> T post(
      URI uri,
      String model,
      Map<String, String> headers,
      byte[] body,
      StreamReader<T> reader,
      StreamListener listener,
      Cancellation cancellation) {
    Exchange exchange = new Exchange();
    cancellation.onCancel(exchange::cancel);
    for (int attempt = 0; ; attempt++) {
      if (exchange.isCancelled()) {
        throw HttpFailures.cancelled();
      }
      try {
        return attempt(uri, model, headers, body, reader, exchange);
      } catch (HttpFailures.Retryable r) {
        if (attempt >= options.maxRetries()) {
          throw attempt == 0
              ? r.failure
              : new ModelException(
                  r.failure.kind(),
                  r.failure.getMessage() + " (gave up after " + attempt + " retries)",
                  r.failure.getCause());
        }
        Duration delay = r.retryAfter != null ? r.retryAfter : backoff(attempt);
        if (delay.compareTo(options.maxRetryDelay()) > 0) {
          delay = options.maxRetryDelay();
        }
        listener.retrying(new StreamListener.Retry(r.reason, delay, attempt + 1, options.maxRetries()));
        log.warn(
            "{}; retry {} of {} in {} ms",
            r.failure.getMessage(),
            attempt + 1,
            options.maxRetries(),
            delay.toMillis());
        if (!exchange.sleep(actualDelay.apply(delay))) {
          throw HttpFailures.cancelled();
        }
      }
    }
  }

  private Duration backoff(int attempt) {
    return options.backoffBase().multipliedBy(1L << Math.min(attempt, 20));
  }

  private <T> T attempt(
      URI uri,
      String model,
      Map<String, String> headers,
      byte[] body,
      StreamReader<T> reader,
      Exchange exchange)
      throws HttpFailures.Retryable {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(options.responseTimeout())
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    BodyStream stream = new BodyStream(options.idleTimeout());
    CompletableFuture<HttpResponse<BodyStream>> future =
        client.sendAsync(request.build(), info -> stream);
    exchange.attach(future, stream);
    HttpResponse<BodyStream> response;
    try {
      response = future.get();
    } catch (CancellationException e) {
      throw HttpFailures.cancelled();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.cancel();
      throw HttpFailures.cancelled();
    } catch (ExecutionException e) {
      if (exchange.isCancelled()) {
        throw HttpFailures.cancelled();
      }
      throw failures.sendFailure(uri, e.getCause());
    }
    try (BodyStream in = response.body()) {
      int status = response.statusCode();
      if (status / 100 != 2) {
        throw failures.statusFailure(status, response.headers(), failures.errorBody(in), model, uri);
      }
      Progress progress = new Progress();
      try {
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        BufferedInputStream answer = new BufferedInputStream(new Bounded(in, options.maxAnswerBytes()));
        Optional<String> notAnAnswer = WrongServer.notAnAnswer(contentType, answer);
        if (notAnAnswer.isPresent()) {
          throw wrongServer.notTheApi(uri, notAnAnswer.get());
        }
        return reader.read(answer, contentType, progress);
      } catch (IOException e) {
        if (exchange.isCancelled()) {
          throw HttpFailures.cancelled();
        }
        if (e instanceof TooLarge) {
          throw new ModelException(
              ModelException.Kind.PROTOCOL,
              target.provider() + " at " + uri + " sent an answer past the " + size(options.maxAnswerBytes())
                  + " limit, so it was stopped (maxAnswerMiB in settings raises the limit)",
              e);
        }
        if (e instanceof BodyStream.IdleTimeoutException) {
          throw new ModelException(
              ModelException.Kind.NETWORK,
              target.provider() + " at " + uri + " stopped sending: " + e.getMessage(),
              e);
        }
        ModelException failure =
            new ModelException(
                ModelException.Kind.NETWORK,
                progress.any()
                    ? "the connection to " + uri + " broke after the answer had started ("
                        + e.getMessage() + "); the partial answer was discarded"
                    : "the connection to " + uri + " broke before the answer started ("
                        + e.getMessage() + ")",
                e);
        if (progress.any()) {
          throw failure;
        }
        throw new HttpFailures.Retryable(failure, null, "connection broke");
      } catch (ModelException e) {
        if (exchange.isCancelled()) {
          throw HttpFailures.cancelled();
        }
        if (apiKey != null && e.getMessage() != null && e.getMessage().contains(apiKey)) {
          e = new ModelException(e.kind(), failures.mask(e.getMessage()), e.getCause());
        }
        boolean transientKind =
            e.kind() == ModelException.Kind.SERVER || e.kind() == ModelException.Kind.RATE_LIMITED;
        if (transientKind && !progress.any()) {
          throw new HttpFailures.Retryable(e, null,
              e.kind() == ModelException.Kind.RATE_LIMITED ? "rate limited" : "server error");
        }
        throw e;
      }
    }
  }

  /** An answer body longer than {@link HttpOptions#maxAnswerBytes()}. */
  private static final class TooLarge extends IOException {
    TooLarge() {
      super("the answer is too large");
    }
  }

  /** Reads at most {@code limit} bytes of a body, then fails: a server cannot make the client hold more. */
  private static final class Bounded extends FilterInputStream {
    private long left;

    Bounded(InputStream in, long limit) {
      super(in);
      this.left = limit;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        left -= n;
        if (left < 0) {
          throw new TooLarge();
        }
      }
      return n;
    }
  }

  static String size(long bytes) {
    if (bytes % (1L << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    return bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " bytes";
  }

  /** One call's abort switch: reaches the in-flight request, its body, and a retry pause. */
  private static final class Exchange {
    private boolean cancelled;
    private CompletableFuture<?> future;
    private BodyStream body;

    void cancel() {
      CompletableFuture<?> f;
      BodyStream b;
      synchronized (this) {
        cancelled = true;
        f = future;
        b = body;
        notifyAll();
      }
      abort(f, b);
    }

    void attach(CompletableFuture<?> f, BodyStream b) {
      boolean now;
      synchronized (this) {
        future = f;
        body = b;
        now = cancelled;
      }
      if (now) {
        abort(f, b);
      }
    }

    private static void abort(CompletableFuture<?> f, BodyStream b) {
      if (f != null) {
        f.cancel(true);
      }
      if (b != null) {
        b.abort();
      }
    }

    synchronized boolean isCancelled() {
      return cancelled;
    }

    /** Waits {@code d}; false if cancelled meanwhile. */
    synchronized boolean sleep(Duration d) {
      long deadline = System.nanoTime() + d.toNanos();
      while (!cancelled) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          cancelled = true;
        }
      }
      return false;
    }
  }
}
