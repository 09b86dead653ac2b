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
    final String reason;

    Retryable(ModelException failure, Duration retryAfter, String reason) {
      super(failure.getMessage(), null, false, false);
      this.failure = failure;
      this.retryAfter = retryAfter;
      this.reason = reason;
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
      StreamListener listener,
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
        listener.retrying(new StreamListener.Retry(r.reason, delay, attempt + 1, options.maxRetries()));
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
        throw statusFailure(status, response.headers(), errorBody(in), model, uri);
      }
      Progress progress = new Progress();
      try {
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        java.io.BufferedInputStream answer = new java.io.BufferedInputStream(new Bounded(in, options.maxAnswerBytes()));
        Optional<String> notAnAnswer = notAnAnswer(contentType, answer);
        if (notAnAnswer.isPresent()) {
          throw notTheApi(uri, notAnAnswer.get());
        }
        return reader.read(answer, contentType, progress);
      } catch (IOException e) {
        if (exchange.isCancelled()) {
          throw cancelled();
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
        throw new Retryable(failure, null, "connection broke");
      } catch (ModelException e) {
        if (exchange.isCancelled()) {
          throw cancelled();
        }
        if (apiKey != null && e.getMessage() != null && e.getMessage().contains(apiKey)) {
          e = new ModelException(e.kind(), mask(e.getMessage()), e.getCause());
        }
        boolean transientKind =
            e.kind() == ModelException.Kind.SERVER || e.kind() == ModelException.Kind.RATE_LIMITED;
        if (transientKind && !progress.any()) {
          throw new Retryable(e, null,
              e.kind() == ModelException.Kind.RATE_LIMITED ? "rate limited" : "server error");
        }
        throw e;
      }
    }
  }

  /**
   * What a 200 answer is instead of a model's answer, if it plainly is something else: a web page
   * (a login portal, a proxy's page, a server's home page), by its content type or a first
   * character {@code <}; or text whose first line is no event-stream field and no JSON (a status
   * line such as "Ollama is running"). Looks only at the first line, which must arrive anyway.
   */
  private static Optional<String> notAnAnswer(String contentType, java.io.BufferedInputStream body) throws IOException {
    boolean html = contentType.toLowerCase(java.util.Locale.ROOT).startsWith("text/html");
    int limit = 2048;
    body.mark(limit);
    byte[] head = new byte[limit];
    int n = 0;
    while (n < limit) {
      int read = body.read(head, n, limit - n);
      if (read < 0) {
        break;
      }
      n += read;
      String sofar = new String(head, 0, n, StandardCharsets.UTF_8).replace("\uFEFF", "").stripLeading();
      // a page is read on to its title (pages come whole); anything else only to its first line
      if (!html && !sofar.startsWith("<") ? sofar.indexOf('\n') >= 0 : sofar.toLowerCase(java.util.Locale.ROOT).contains("</title>")) {
        break;
      }
    }
    body.reset();
    String start = new String(head, 0, n, StandardCharsets.UTF_8).replace("\uFEFF", "").stripLeading();
    if (html || start.startsWith("<")) {
      return Optional.of("a web page (HTML)" + titleOf(start).map(t -> " \"" + t + "\"").orElse(""));
    }
    String firstLine = start.lines().findFirst().orElse("");
    if (firstLine.isEmpty() || firstLine.startsWith(":") || firstLine.startsWith("{") || firstLine.startsWith("[")
        || firstLine.matches("(?i)(data|event|id|retry|error)\\s*:.*")) {
      return Optional.empty();
    }
    return Optional.of("text that is neither an event stream nor JSON (\"" + excerpt(firstLine) + "\")");
  }

  /** The title of a web page (else its first heading), on one line. */
  static Optional<String> titleOf(String html) {
    for (String tag : new String[] {"title", "h1"}) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("(?is)<" + tag + "[^>]*>(.*?)</" + tag + ">").matcher(html);
      if (m.find()) {
        String text = m.group(1).replaceAll("<[^>]*>", "").replaceAll("\\s+", " ").strip();
        if (!text.isEmpty()) {
          return Optional.of(text);
        }
      }
    }
    return Optional.empty();
  }

  /** The failure for an answer that shows the base URL leads somewhere other than the model API. */
  ModelException notTheApi(URI uri, String what) {
    return new ModelException(
        ModelException.Kind.PROTOCOL,
        (uri == null ? target.provider() + " at " + target.baseUrl() : uri) + " answered with " + what + ", so it is "
            + (isAnthropic()
                ? "not an Anthropic API endpoint"
                : "not an OpenAI-compatible endpoint (its base URL usually ends in /v1)")
            + "; check " + target.baseUrlSetting() + " (" + target.baseUrl() + ")");
  }

  private boolean isAnthropic() {
    return target.provider().contains("Anthropic");
  }

  /** An answer body longer than {@link HttpOptions#maxAnswerBytes()}. */
  private static final class TooLarge extends IOException {
    TooLarge() {
      super("the answer is too large");
    }
  }

  /** Reads at most {@code limit} bytes of a body, then fails: a server cannot make the client hold more. */
  private static final class Bounded extends java.io.FilterInputStream {
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

  private Retryable sendFailure(URI uri, Throwable cause) {
    if (cause instanceof HttpConnectTimeoutException) {
      return new Retryable(
          new ModelException(
              ModelException.Kind.NETWORK,
              "could not connect to " + uri + " within " + options.connectTimeout().toSeconds()
                  + " s; is the server running? Check " + target.baseUrlSetting() + plainHttpHint(uri),
              cause),
          null,
          "could not connect");
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
      String why = why(cause);
      return new Retryable(
          new ModelException(
              ModelException.Kind.NETWORK,
              "could not reach " + target.provider() + " at " + uri + " (" + why + "); check "
                  + target.baseUrlSetting(),
              cause),
          null,
          "connection failed");
    }
    throw new ModelException(
        ModelException.Kind.NETWORK,
        "request to " + uri + " failed" + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
        cause);
  }

  /**
   * A TLS handshake with a server that speaks plain HTTP hangs until the connect timeout: local
   * servers (on a port of their own) rarely speak https, so say so.
   */
  private static String plainHttpHint(URI uri) {
    if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getPort() == -1 || uri.getPort() == 443) {
      return "";
    }
    return " (if the server speaks plain HTTP, its URL starts with http://, not https://)";
  }

  /** A connection failure in a user's words, never an exception class name. */
  static String why(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      // the client wraps an unresolved name in a ConnectException: look for it first
      if (t instanceof java.net.UnknownHostException || t instanceof java.nio.channels.UnresolvedAddressException) {
        return "unknown host";
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof java.net.ConnectException) {
        return "connection refused";
      }
      if (t instanceof javax.net.ssl.SSLException) {
        return "TLS failed" + (t.getMessage() == null ? "" : ": " + t.getMessage());
      }
      if (t instanceof java.io.EOFException || t instanceof java.nio.channels.ClosedChannelException) {
        return "the server closed the connection";
      }
    }
    String message = failure.getMessage();
    return message == null || message.isBlank() ? "the connection failed" : message;
  }

  private Retryable statusFailure(
      int status, HttpHeaders headers, ErrorBody body, String model, URI uri) {
    String excerpt = body.excerpt();
    String detail = excerpt.isEmpty() ? "" : ": " + excerpt;
    String who = target.provider() + " at " + target.baseUrl();
    ModelException.Kind said = classify(body.code(), excerpt, null);
    if (said == ModelException.Kind.QUOTA) {
      throw new ModelException(said, who + " says the account's quota is used up (HTTP " + status + detail
          + "); waiting will not help: check the plan and billing");
    }
    if (said == ModelException.Kind.CONTEXT_TOO_LONG && status / 100 == 4) {
      throw new ModelException(said, who + " says the conversation is too long for model '" + model + "' (HTTP "
          + status + detail + ")");
    }
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
              + target.baseUrlSetting() + " (" + target.baseUrl() + ")" + v1Hint(body) + " and --model");
      case 405 -> throw new ModelException(
          ModelException.Kind.NOT_FOUND,
          uri + " takes no requests of this kind (HTTP 405" + detail + "), so it is not where the model API is; check "
              + target.baseUrlSetting() + " (" + target.baseUrl() + ")" + v1Hint(body));
      case 301, 302, 303, 307, 308 -> {
        String location = headers.firstValue("Location").orElse("");
        String suggestion = location.isEmpty() ? "" : "; set " + target.baseUrlSetting() + " to "
            + location.replaceFirst("/?(chat/completions|messages)/?$", "");
        throw new ModelException(
            ModelException.Kind.PROTOCOL,
            who + " redirects " + (location.isEmpty() ? "elsewhere" : "to " + location) + " (HTTP " + status + ")"
                + (suggestion.isEmpty() ? "; check " + target.baseUrlSetting() : suggestion));
      }
      case 429 -> {
        return new Retryable(
            new ModelException(
                ModelException.Kind.RATE_LIMITED,
                who + " is rate limiting (HTTP 429" + detail + ")"),
            retryAfter(headers).orElse(null),
            "rate limited");
      }
      default -> {
        if (status >= 500 || status == 408) {
          return new Retryable(
              new ModelException(
                  ModelException.Kind.SERVER, who + " failed with HTTP " + status + detail),
              retryAfter(headers).orElse(null),
              "server error (HTTP " + status + ")");
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

  /**
   * What an error the server described means, from its code, type and message; {@code otherwise}
   * when nothing in them says more.
   */
  static ModelException.Kind classify(String code, String message, ModelException.Kind otherwise) {
    String c = code == null ? "" : code.toLowerCase(java.util.Locale.ROOT);
    String m = message == null ? "" : message.toLowerCase(java.util.Locale.ROOT);
    if (c.contains("context_length") || c.contains("exceed_context") || m.contains("context length")
        || m.contains("context size") || m.contains("context window") || m.contains("prompt is too long")
        || m.contains("maximum context")) {
      return ModelException.Kind.CONTEXT_TOO_LONG;
    }
    if (c.contains("insufficient_quota") || c.contains("billing")) {
      return ModelException.Kind.QUOTA;
    }
    if (c.contains("invalid_api_key") || c.contains("authentication") || c.contains("permission")) {
      return ModelException.Kind.AUTHENTICATION;
    }
    if (c.contains("rate") || c.contains("overloaded")) {
      return ModelException.Kind.RATE_LIMITED;
    }
    return otherwise;
  }

  /** The error a server put in its stream, as a failure the user can act on. */
  ModelException streamError(String code, String message) {
    String text = excerpt(mask(message));
    ModelException.Kind kind = classify(code, message, ModelException.Kind.SERVER);
    return switch (kind) {
      case AUTHENTICATION -> new ModelException(kind, target.provider() + " refused the API key: " + text
          + "; check " + target.keySetting());
      case QUOTA -> new ModelException(kind, target.provider() + " says the account's quota is used up: " + text);
      case CONTEXT_TOO_LONG -> new ModelException(kind, target.provider()
          + " says the conversation is too long for the model: " + text);
      default -> new ModelException(kind, "the server reported an error mid-stream: " + text);
    };
  }

  /**
   * For a 404 that is not about the model: OpenAI-compatible servers serve under {@code /v1}, so a
   * base URL without it is the likeliest mistake.
   */
  private String v1Hint(ErrorBody body) {
    String path = target.baseUrl().getPath() == null ? "" : target.baseUrl().getPath();
    boolean aboutModel = body.excerpt().toLowerCase(java.util.Locale.ROOT).contains("model");
    if (isAnthropic() || aboutModel || path.matches(".*/v\\d+[a-z]*(/.*)?")) {
      return "";
    }
    String base = target.baseUrl().toString().replaceFirst("/+$", "");
    return "; an OpenAI-compatible server's base URL usually ends in /v1, e.g. " + base + "/v1";
  }

  /** {@code retry-after-ms} (OpenAI) or {@code Retry-After} in seconds or as an HTTP date. */
  static Optional<Duration> retryAfter(HttpHeaders headers) {
    return retryAfter(headers, java.time.Clock.systemUTC());
  }

  /** {@link #retryAfter(HttpHeaders)}, with an HTTP date counted from {@code clock}'s now. */
  static Optional<Duration> retryAfter(HttpHeaders headers, java.time.Clock clock) {
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
      Duration d = Duration.between(clock.instant(), at.toInstant());
      return Optional.of(d.isNegative() ? Duration.ZERO : d);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** An error body: its message, short, on one line, without the API key; its code and type. */
  record ErrorBody(String excerpt, String code) {}

  private ErrorBody errorBody(InputStream in) {
    String text;
    try {
      text = new String(in.readNBytes(8192), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return new ErrorBody("", "");
    }
    String code = "";
    try {
      JsonNode node = JSON.readTree(text);
      JsonNode error = node.path("error");
      code = error.path("code").asText("") + " " + error.path("type").asText("");
      if (error.isTextual()) {
        text = error.asText();
      } else if (error.path("message").isTextual()) {
        text = error.path("message").asText();
      } else if (node.path("message").isTextual()) {
        text = node.path("message").asText();
      }
    } catch (IOException | RuntimeException notJson) {
      if (text.startsWith("<")) { // a proxy's or web server's page: its title says it, the markup does not
        text = "a web page" + titleOf(text).map(t -> " \"" + t + "\"").orElse("");
      }
    }
    return new ErrorBody(excerpt(mask(text)), code.strip());
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
