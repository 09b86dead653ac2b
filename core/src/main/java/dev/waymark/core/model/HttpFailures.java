package dev.waymark.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLException;

/** What a failed request means (worth another attempt or not) and how it is said, never with the API key. */
final class HttpFailures {

  /** A failure worth another attempt, with the server's requested delay if it named one. */
  static final class Retryable extends Exception {
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

  private final ServerTarget target;
  private final String apiKey;
  private final HttpOptions options;
  private final WrongServer wrongServer;

  /** @param apiKey null when none is set */
  HttpFailures(ServerTarget target, String apiKey, HttpOptions options, WrongServer wrongServer) {
    this.target = target;
    this.apiKey = apiKey;
    this.options = options;
    this.wrongServer = wrongServer;
  }

  /** Why a request could not be sent: retryable when the server may come back, else thrown. */
  Retryable sendFailure(URI uri, Throwable cause) {
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
      if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
        return "unknown host";
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
      if (t instanceof SSLException) {
        return "TLS failed" + (t.getMessage() == null ? "" : ": " + t.getMessage());
      }
      if (t instanceof EOFException || t instanceof ClosedChannelException) {
        return "the server closed the connection";
      }
    }
    String message = failure.getMessage();
    return message == null || message.isBlank() ? "the connection failed" : message;
  }

  /** What a status other than 2xx means: retryable (429, 5xx, 408), else thrown. */
  Retryable statusFailure(
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
    String c = code == null ? "" : code.toLowerCase(Locale.ROOT);
    String m = message == null ? "" : message.toLowerCase(Locale.ROOT);
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
    String text = Excerpts.oneLine(mask(message));
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
    boolean aboutModel = body.excerpt().toLowerCase(Locale.ROOT).contains("model");
    if (wrongServer.isAnthropic() || aboutModel || path.matches(".*/v\\d+[a-z]*(/.*)?")) {
      return "";
    }
    String base = target.baseUrl().toString().replaceFirst("/+$", "");
    return "; an OpenAI-compatible server's base URL usually ends in /v1, e.g. " + base + "/v1";
  }

  /** {@code retry-after-ms} (OpenAI) or {@code Retry-After} in seconds or as an HTTP date. */
  static Optional<Duration> retryAfter(HttpHeaders headers) {
    return retryAfter(headers, Clock.systemUTC());
  }

  /** {@link #retryAfter(HttpHeaders)}, with an HTTP date counted from {@code clock}'s now. */
  static Optional<Duration> retryAfter(HttpHeaders headers, Clock clock) {
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

  /** Reads a failed answer's body (at most 8 KiB) into what the user is told of it. */
  ErrorBody errorBody(InputStream in) {
    String text;
    try {
      text = new String(in.readNBytes(8192), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return new ErrorBody("", "");
    }
    String code = "";
    try {
      JsonNode node = ModelJson.JSON.readTree(text);
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
        text = "a web page" + WrongServer.titleOf(text).map(t -> " \"" + t + "\"").orElse("");
      }
    }
    return new ErrorBody(Excerpts.oneLine(mask(text)), code.strip());
  }

  /** The text with the API key replaced, so no message echoes it. */
  String mask(String text) {
    return apiKey == null || apiKey.isEmpty() ? text : text.replace(apiKey, "***");
  }

  /** The text on one line, cut at a length a message can show. */
  static ModelException cancelled() {
    return new ModelException(ModelException.Kind.CANCELLED, "cancelled");
  }
}
