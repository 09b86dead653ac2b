package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.protocol.ErrorKind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;

/**
 * {@code web_fetch}: GET a public http(s) URL and return it as text (HTML as Markdown-like text),
 * with the final URL and the content type. Redirects are followed by hand, each hop's host checked
 * as the first was ({@link WebAccess}), within a size and a time limit. Asks in every mode but yolo
 * unless a rule allows the domain ({@code web_fetch(domain:example.com)}): a URL can carry what the
 * model read in the project out to anyone.
 */
public final class WebFetchTool extends AbstractTool {
  static final long DEFAULT_MAX_BYTES = 1L << 20;
  static final long MAX_MAX_BYTES = 10L << 20;

  private final WebAccess access;
  private final HttpClient client;

  public WebFetchTool(WebAccess access, ToolSettings settings) {
    super("web_fetch",
        "Fetch a web page or file over HTTP(S) with GET and return it as text (HTML is turned into Markdown-like text). "
            + "Only public addresses. Returns the final URL after redirects and the content type.",
        new Args.Schema()
            .string("url", "The http:// or https:// URL", true)
            .integer("max_bytes", "Most bytes to download (default " + DEFAULT_MAX_BYTES + ", at most " + MAX_MAX_BYTES + ")",
                false),
        ToolKind.NETWORK, settings);
    this.access = access;
    this.client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(access.timeout().compareTo(Duration.ofSeconds(10)) < 0 ? access.timeout() : Duration.ofSeconds(10))
        .build();
  }

  @Override
  String summary(Args args) throws ToolError {
    return "fetch " + args.string("url");
  }

  @Override
  public Optional<String> ruleSubject(JsonNode arguments) {
    try {
      String host = new URI(arguments.path("url").asText("").strip()).getHost();
      return host == null ? Optional.empty() : Optional.of("domain:" + host.toLowerCase(Locale.ROOT));
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    URI uri = parse(args.string("url"));
    long maxBytes = args.optionalLong("max_bytes", 1, MAX_MAX_BYTES).orElse(DEFAULT_MAX_BYTES);
    Instant deadline = Instant.now().plus(access.timeout());
    for (int hop = 0; ; hop++) {
      Optional<String> refused = access.refusal(uri);
      if (refused.isPresent()) {
        return ToolResult.error(ErrorKind.REFUSED, "Not fetched: " + refused.get() + (hop > 0 ? " (reached by a redirect to " + uri + ")" : "") + ".");
      }
      Duration left = Duration.between(Instant.now(), deadline);
      if (left.isNegative() || left.isZero()) {
        return ToolResult.error(ErrorKind.TIMED_OUT, "Not fetched: " + uri + " took longer than " + access.timeout().toSeconds() + " s.");
      }
      HttpRequest request = HttpRequest.newBuilder(uri).timeout(left).GET()
          .header("User-Agent", "Waymark (web_fetch)")
          .header("Accept", "text/html, text/plain, text/markdown, application/json;q=0.9, */*;q=0.5").build();
      HttpResponse<InputStream> response;
      try {
        response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
      } catch (HttpTimeoutException e) {
        return ToolResult.error(ErrorKind.TIMED_OUT, "Not fetched: " + uri + " took longer than " + access.timeout().toSeconds() + " s.");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ToolResult.error(ErrorKind.INTERRUPTED, "Not fetched: the turn was interrupted.");
      }
      int status = response.statusCode();
      if (status >= 300 && status < 400 && response.headers().firstValue("Location").isPresent()) {
        response.body().close();
        if (hop >= access.maxRedirects()) {
          return ToolResult.error(ErrorKind.TOOL_FAILED, "Not fetched: more than " + access.maxRedirects() + " redirects, the last to " + uri + ".");
        }
        uri = uri.resolve(response.headers().firstValue("Location").get().strip());
        continue;
      }
      byte[] body;
      boolean cut;
      try (InputStream in = response.body()) {
        byte[] read = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        cut = read.length > maxBytes;
        body = cut ? Arrays.copyOf(read, (int) maxBytes) : read;
      }
      return ToolResult.ok(describe(uri, hop > 0, response, body, cut, maxBytes, status));
    }
  }

  private String describe(URI finalUri, boolean redirected, HttpResponse<InputStream> response, byte[] body, boolean cut,
      long maxBytes, int status) {
    String type = response.headers().firstValue("Content-Type").orElse("").strip();
    String mime = type.contains(";") ? type.substring(0, type.indexOf(';')).strip().toLowerCase(Locale.ROOT)
        : type.toLowerCase(Locale.ROOT);
    StringBuilder head = new StringBuilder();
    head.append(status >= 400 ? "HTTP " + status + " from " : "Fetched ").append(finalUri)
        .append(redirected ? " (after redirects)" : "").append('\n')
        .append("Content-Type: ").append(type.isEmpty() ? "(none)" : type).append(", ").append(body.length).append(" bytes")
        .append(cut ? " (cut at max_bytes " + maxBytes + ")" : "").append("\n\n");
    String text;
    if (mime.equals("text/html") || mime.equals("application/xhtml+xml") || mime.isEmpty() && looksLikeHtml(body)) {
      text = HtmlText.of(parseHtml(body, charset(type), finalUri.toString()));
    } else if (mime.startsWith("text/") || mime.endsWith("+json") || mime.endsWith("/json") || mime.endsWith("+xml")
        || mime.endsWith("/xml") || mime.equals("application/javascript") || mime.isEmpty()) {
      text = new String(body, charset(type).orElse(StandardCharsets.UTF_8));
    } else {
      return head.append("Binary content (").append(mime).append("); not shown.").toString();
    }
    int limit = settings.readMaxChars();
    if (text.length() > limit) {
      text = text.substring(0, limit) + "\n[cut at " + limit + " characters]";
    }
    return head.append(text).toString();
  }

  private static Document parseHtml(byte[] body, Optional<Charset> charset, String baseUri) {
    try {
      return Jsoup.parse(new ByteArrayInputStream(body), charset.map(Charset::name).orElse(null), baseUri);
    } catch (IOException e) {
      return Jsoup.parse(new String(body, StandardCharsets.UTF_8), baseUri);
    }
  }

  private static boolean looksLikeHtml(byte[] body) {
    String start = new String(body, 0, Math.min(body.length, 512), StandardCharsets.ISO_8859_1).stripLeading()
        .toLowerCase(Locale.ROOT);
    return start.startsWith("<!doctype html") || start.startsWith("<html");
  }

  private static Optional<Charset> charset(String contentType) {
    for (String part : contentType.split(";")) {
      String p = part.strip();
      if (p.toLowerCase(Locale.ROOT).startsWith("charset=")) {
        try {
          return Optional.of(Charset.forName(p.substring(8).replace("\"", "").strip()));
        } catch (RuntimeException unknown) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  private static URI parse(String url) throws ToolError {
    try {
      URI uri = new URI(url.strip());
      if (!uri.isAbsolute()) {
        throw new ToolError(ErrorKind.REFUSED, "Not a URL: \"" + url + "\" (give an absolute http:// or https:// URL).");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new ToolError(ErrorKind.REFUSED, "Not a URL: \"" + url + "\" (" + e.getReason() + ").");
    }
  }
}
