package dev.waymark.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part both HTTP clients share: one streaming POST with retries, cancellation and error
 * messages a user can act on. Providers differ only in the request body and the stream parser.
 *
 * <p>Retries happen only while nothing reached the listener (a 429, a 5xx, a connection failure, an
 * in-stream overload): after the first token a retry would show the user a second answer.
 */
final class HttpTransport {
  private static final Logger log = LoggerFactory.getLogger(HttpTransport.class);
  static final ObjectMapper JSON = new ObjectMapper();
  private static final int EXCERPT = 300;

  /** Who we talk to, for error messages: which settings the user should check. */
  record Target(String provider, URI baseUrl, String keySetting, String baseUrlSetting) {}

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

  /** A failure worth another attempt, with the server's requested delay if it named one. */
  private static final class Retryable extends Exception {
    final ModelException failure;
    final Duration retryAfter;

    Retryable(ModelException failure, Duration retryAfter) {
      super(failure.getMessage(), null, false, false);
      this.failure = failure;
      this.retryAfter = retryAfter;
    }
  }

  private final HttpClient client;
  private final HttpOptions options;
  private final UnaryOperator<Duration> actualDelay;
  private final Target target;
  private final String apiKey;

  /**
   * @param actualDelay maps a computed retry delay to the one really waited (tests shrink it and
   *     record what was asked for); the identity in production
   */
  HttpTransport(Target target, String apiKey, HttpOptions options, UnaryOperator<Duration> actualDelay) {
    this.target = target;
    this.apiKey = apiKey;
    this.options = options;
    this.actualDelay = actualDelay;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(options.connectTimeout())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
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
      Cancellation cancellation) {
    Exchange exchange = new Exchange();
    cancellation.onCancel(exchange::cancel);
    for (int attempt = 0; ; attempt++) {
      if (exchange.isCancelled()) {
        throw cancelled();
      }
      try {
        return attempt(uri, model, headers, body, reader, exchange);
      } catch (Retryable r) {
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
        log.warn(
            "{}; retry {} of {} in {} ms",
            r.failure.getMessage(),
            attempt + 1,
            options.maxRetries(),
            delay.toMillis());
        if (!exchange.sleep(actualDelay.apply(delay))) {
          throw cancelled();
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
      throws Retryable {
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
      throw cancelled();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.cancel();
      throw cancelled();
    } catch (ExecutionException e) {
      if (exchange.isCancelled()) {
        throw cancelled();
      }
      throw sendFailure(uri, e.getCause());
    }
    try (BodyStream in = response.body()) {
      int status = response.statusCode();
      if (status / 100 != 2) {
        throw statusFailure(status, response.headers(), errorExcerpt(in), model, uri);
      }
      Progress progress = new Progress();
      try {
        return reader.read(
            in, response.headers().firstValue("Content-Type").orElse(""), progress);
      } catch (IOException e) {
        if (exchange.isCancelled()) {
          throw cancelled();
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
        throw new Retryable(failure, null);
      } catch (ModelException e) {
        if (exchange.isCancelled()) {
          throw cancelled();
        }
        boolean transientKind =
            e.kind() == ModelException.Kind.SERVER || e.kind() == ModelException.Kind.RATE_LIMITED;
        if (transientKind && !progress.any()) {
          throw new Retryable(e, null);
        }
        throw e;
      }
    }
  }

  private Retryable sendFailure(URI uri, Throwable cause) {
    if (cause instanceof HttpConnectTimeoutException) {
      return new Retryable(
          new ModelException(
              ModelException.Kind.NETWORK,
              "could not connect to " + uri + " within " + options.connectTimeout().toSeconds()
                  + " s; is the server running? Check " + target.baseUrlSetting(),
              cause),
          null);
    }
    if (cause instanceof HttpTimeoutException) {
      // Not retried: waiting the whole response timeout again helps nobody.
      throw new ModelException(
          ModelException.Kind.NETWORK,
          target.provider() + " at " + uri + " sent no answer within "
              + options.responseTimeout().toSeconds() + " s",
          cause);
    }
    if (cause instanceof IOException) {
      String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
      return new Retryable(
          new ModelException(
              ModelException.Kind.NETWORK,
              "could not reach " + target.provider() + " at " + uri + " (" + why + "); check "
                  + target.baseUrlSetting(),
              cause),
          null);
    }
    throw new ModelException(
        ModelException.Kind.NETWORK, "request to " + uri + " failed: " + cause, cause);
  }

  private Retryable statusFailure(
      int status, HttpHeaders headers, String excerpt, String model, URI uri) {
    String detail = excerpt.isEmpty() ? "" : ": " + excerpt;
    String who = target.provider() + " at " + target.baseUrl();
    switch (status) {
      case 401, 403 -> throw new ModelException(
          ModelException.Kind.AUTHENTICATION,
          apiKey == null
              ? who + " requires an API key (HTTP " + status + detail + "); set "
                  + target.keySetting()
              : who + " refused the API key (HTTP " + status + detail + "); check "
                  + target.keySetting());
      case 404 -> throw new ModelException(
          ModelException.Kind.NOT_FOUND,
          uri + " answered 404 for model '" + model + "'" + detail + "; check "
              + target.baseUrlSetting() + " (" + target.baseUrl() + ") and --model");
      case 429 -> {
        return new Retryable(
            new ModelException(
                ModelException.Kind.RATE_LIMITED,
                who + " is rate limiting (HTTP 429" + detail + ")"),
            retryAfter(headers).orElse(null));
      }
      default -> {
        if (status >= 500 || status == 408) {
          return new Retryable(
              new ModelException(
                  ModelException.Kind.SERVER, who + " failed with HTTP " + status + detail),
              retryAfter(headers).orElse(null));
        }
        if (status >= 400) {
          throw new ModelException(
              ModelException.Kind.BAD_REQUEST,
              who + " rejected the request for model '" + model + "' (HTTP " + status + detail
                  + ")");
        }
        throw new ModelException(
            ModelException.Kind.PROTOCOL,
            who + " answered with unexpected HTTP " + status + detail);
      }
    }
  }

  /** {@code retry-after-ms} (OpenAI) or {@code Retry-After} in seconds or as an HTTP date. */
  static Optional<Duration> retryAfter(HttpHeaders headers) {
    try {
      Optional<String> ms = headers.firstValue("retry-after-ms");
      if (ms.isPresent()) {
        return Optional.of(Duration.ofMillis((long) Double.parseDouble(ms.get().trim())));
      }
      Optional<String> value = headers.firstValue("retry-after");
      if (value.isEmpty()) {
        return Optional.empty();
      }
      String v = value.get().trim();
      if (v.matches("\\d+(\\.\\d+)?")) {
        return Optional.of(Duration.ofMillis((long) (Double.parseDouble(v) * 1000)));
      }
      ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
      Duration d = Duration.between(ZonedDateTime.now(at.getZone()), at);
      return Optional.of(d.isNegative() ? Duration.ZERO : d);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The error body's message, short, on one line, without the API key. */
  private String errorExcerpt(InputStream in) {
    String text;
    try {
      text = new String(in.readNBytes(8192), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "";
    }
    try {
      JsonNode node = JSON.readTree(text);
      JsonNode error = node.path("error");
      if (error.isTextual()) {
        text = error.asText();
      } else if (error.path("message").isTextual()) {
        text = error.path("message").asText();
      } else if (node.path("message").isTextual()) {
        text = node.path("message").asText();
      }
    } catch (IOException | RuntimeException notJson) {
      // keep the raw text
    }
    return excerpt(mask(text));
  }

  String mask(String text) {
    return apiKey == null || apiKey.isEmpty() ? text : text.replace(apiKey, "***");
  }

  static String excerpt(String text) {
    String oneLine = text.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= EXCERPT ? oneLine : oneLine.substring(0, EXCERPT) + "...";
  }

  private ModelException cancelled() {
    return new ModelException(ModelException.Kind.CANCELLED, "cancelled");
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
