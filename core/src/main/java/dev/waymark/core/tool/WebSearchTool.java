package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jsoup.Jsoup;

/**
 * {@code web_search}: asks the user's search backend ({@link WebSearch}) and gives the model the
 * results, a title, URL and snippet each, to read further with {@code web_fetch}. Offered only when
 * a backend is configured; asks in every mode but yolo, as a query can carry the project's data out.
 */
public final class WebSearchTool extends AbstractTool {
  static final int MAX_RESULTS = 10;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final WebSearch backend;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
      .followRedirects(HttpClient.Redirect.NORMAL).build();

  public WebSearchTool(WebSearch backend, ToolSettings settings) {
    super("web_search", "Search the web. Returns up to " + MAX_RESULTS + " results (title, URL, snippet); read one with "
        + "web_fetch.", new Args.Schema().string("query", "What to search for", true), ToolKind.NETWORK, settings);
    this.backend = backend;
  }

  @Override
  String summary(Args args) throws ToolError {
    return "search the web (" + backend.provider() + ") for " + args.string("query");
  }

  /** One result. */
  record Hit(String title, String url, String snippet) {}

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String query = args.string("query").strip();
    if (query.isEmpty()) {
      throw new ToolError(ErrorKind.REFUSED, "The query is empty.");
    }
    HttpResponse<String> response;
    try {
      response = client.send(request(query), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpTimeoutException e) {
      return ToolResult.error(ErrorKind.TIMED_OUT, "The search backend (" + backend.provider() + ") did not answer within "
          + TIMEOUT.toSeconds() + " s.");
    } catch (IOException e) {
      return ToolResult.error(ErrorKind.TOOL_FAILED, "The search backend (" + backend.provider() + " at " + backend.url().getHost()
          + ") could not be reached: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ToolResult.error(ErrorKind.INTERRUPTED, "Not searched: the turn was interrupted.");
    }
    if (response.statusCode() != 200) {
      String body = response.body();
      return ToolResult.error(ErrorKind.TOOL_FAILED, "The search backend (" + backend.provider() + ") answered HTTP " + response.statusCode()
          + (body.isBlank() ? "" : ": " + body.substring(0, Math.min(300, body.length())).strip()));
    }
    List<Hit> hits;
    try {
      hits = hits(JSON.readTree(response.body()));
    } catch (IOException e) {
      return ToolResult.error(ErrorKind.TOOL_FAILED, "The search backend (" + backend.provider() + ") answered something that is not its JSON.");
    }
    if (hits.isEmpty()) {
      return ToolResult.ok("No results for \"" + query + "\".");
    }
    StringBuilder text = new StringBuilder("Results for \"").append(query).append("\" (").append(backend.provider())
        .append("):\n");
    int n = 0;
    for (Hit hit : hits) {
      text.append('\n').append(++n).append(". ").append(hit.title().isBlank() ? hit.url() : hit.title()).append('\n')
          .append("   ").append(hit.url()).append('\n');
      if (!hit.snippet().isBlank()) {
        text.append("   ").append(hit.snippet().replaceAll("\\s+", " ").strip()).append('\n');
      }
    }
    return ToolResult.ok(text.toString().strip());
  }

  private HttpRequest request(String query) throws IOException {
    String q = URLEncoder.encode(query, StandardCharsets.UTF_8);
    HttpRequest.Builder request;
    switch (backend.provider()) {
      case "searxng" -> {
        String base = backend.url().toString().replaceAll("/+$", "");
        request = HttpRequest.newBuilder(URI.create((base.endsWith("/search") ? base : base + "/search") + "?q=" + q
            + "&format=json")).GET();
      }
      case "brave" -> request = HttpRequest.newBuilder(URI.create(backend.url() + "?q=" + q + "&count=" + MAX_RESULTS)).GET()
          .header("X-Subscription-Token", backend.apiKey().orElseThrow());
      case "tavily" -> {
        ObjectNode body = JSON.createObjectNode().put("query", query).put("max_results", MAX_RESULTS);
        request = HttpRequest.newBuilder(backend.url()).POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
            .header("Content-Type", "application/json").header("Authorization", "Bearer " + backend.apiKey().orElseThrow());
      }
      default -> throw new IllegalStateException("no such backend: " + backend.provider());
    }
    return request.timeout(TIMEOUT).header("Accept", "application/json").header("User-Agent", "Waymark (web_search)").build();
  }

  private List<Hit> hits(JsonNode answer) {
    JsonNode results = backend.provider().equals("brave") ? answer.path("web").path("results") : answer.path("results");
    String snippetField = backend.provider().equals("brave") ? "description" : "content";
    List<Hit> hits = new ArrayList<>();
    for (JsonNode result : results) {
      if (hits.size() == MAX_RESULTS) {
        break;
      }
      String url = result.path("url").asText("");
      if (!url.isEmpty()) {
        // Brave marks the query's words with <strong>: the model gets the text
        hits.add(new Hit(Jsoup.parse(result.path("title").asText("")).text(), url,
            Jsoup.parse(result.path(snippetField).asText("")).text()));
      }
    }
    return hits;
  }
}
