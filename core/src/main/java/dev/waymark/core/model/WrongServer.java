package dev.waymark.core.model;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Tells when the base URL leads somewhere other than the model API, and says so naming the setting to fix. */
final class WrongServer {
  private final ServerTarget target;

  WrongServer(ServerTarget target) {
    this.target = target;
  }

  /**
   * What a 200 answer is instead of a model's answer, if it plainly is something else: a web page
   * (a login portal, a proxy's page, a server's home page), by its content type or a first
   * character {@code <}; or text whose first line is no event-stream field and no JSON (a status
   * line such as "Ollama is running"). Looks only at the first line, which must arrive anyway.
   */
  static Optional<String> notAnAnswer(String contentType, BufferedInputStream body) throws IOException {
    boolean html = contentType.toLowerCase(Locale.ROOT).startsWith("text/html");
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
      if (!html && !sofar.startsWith("<") ? sofar.indexOf('\n') >= 0 : sofar.toLowerCase(Locale.ROOT).contains("</title>")) {
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
    return Optional.of("text that is neither an event stream nor JSON (\"" + Excerpts.oneLine(firstLine) + "\")");
  }

  /** The title of a web page (else its first heading), on one line. */
  static Optional<String> titleOf(String html) {
    for (String tag : new String[] {"title", "h1"}) {
      Matcher m = Pattern.compile("(?is)<" + tag + "[^>]*>(.*?)</" + tag + ">").matcher(html);
      if (m.find()) {
        String text = m.group(1).replaceAll("<[^>]*>", "").replaceAll("\\s+", " ").strip();
        if (!text.isEmpty()) {
          return Optional.of(text);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The failure for an answer that shows the base URL leads somewhere other than the model API.
   *
   * @param uri the request's address, or null for the configured base URL
   */
  ModelException notTheApi(URI uri, String what) {
    return new ModelException(
        ModelException.Kind.PROTOCOL,
        (uri == null ? target.provider() + " at " + target.baseUrl() : uri) + " answered with " + what + ", so it is "
            + (isAnthropic()
                ? "not an Anthropic API endpoint"
                : "not an OpenAI-compatible endpoint (its base URL usually ends in /v1)")
            + "; check " + target.baseUrlSetting() + " (" + target.baseUrl() + ")");
  }

  /** Anthropic's API has no {@code /v1} convention to suggest and is named differently. */
  boolean isAnthropic() {
    return target.provider().contains("Anthropic");
  }
}
