package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** web_search against local fakes of SearXNG's, Brave's and Tavily's wire formats. */
class WebSearchToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  HttpServer server;
  String base;
  final List<String> seen = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/search", exchange -> {
      seen.add("GET " + exchange.getRequestURI());
      reply(exchange, 200, "{\"query\":\"x\",\"results\":[{\"url\":\"https://a.example/1\",\"title\":\"First\","
          + "\"content\":\"about   the first\"},{\"url\":\"https://b.example/2\",\"title\":\"Second\",\"content\":\"\"}]}");
    });
    server.createContext("/res/v1/web/search", exchange -> {
      seen.add("GET " + exchange.getRequestURI() + " token=" + exchange.getRequestHeaders().getFirst("X-Subscription-Token"));
      reply(exchange, 200, "{\"type\":\"search\",\"web\":{\"results\":[{\"title\":\"Brave <strong>one</strong>\","
          + "\"url\":\"https://c.example/\",\"description\":\"the <strong>query</strong> here\"}]}}");
    });
    server.createContext("/tavily", exchange -> {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      seen.add("POST " + body + " auth=" + exchange.getRequestHeaders().getFirst("Authorization"));
      reply(exchange, 200, "{\"query\":\"q\",\"results\":[{\"title\":\"Tavily hit\",\"url\":\"https://d.example/\","
          + "\"content\":\"tavily says\",\"score\":0.9}]}");
    });
    server.createContext("/broken", exchange -> reply(exchange, 502, "bad gateway"));
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private ToolResult search(WebSearch backend, String query) throws Exception {
    return new WebSearchTool(backend, ToolSettings.DEFAULTS).run(JSON.createObjectNode().put("query", query),
        new ToolContext(temp, null, null));
  }

  private WebSearch configured(String provider, String url, Map<String, String> env) {
    WebSearch.Result result = WebSearch.configure(provider, url, null, env);
    assertThat(result.problem()).isEmpty();
    return result.search().orElseThrow();
  }

  @Test
  void searxngsJsonApiGivesNumberedResultsWithUrlsAndSnippets() throws Exception {
    ToolResult result = search(configured("searxng", base, Map.of()), "undo tree & branches");
    assertThat(result.isError()).isFalse();
    assertThat(result.content()).isEqualTo("""
        Results for "undo tree & branches" (searxng):

        1. First
           https://a.example/1
           about the first

        2. Second
           https://b.example/2""");
    assertThat(seen).containsExactly("GET /search?q=undo+tree+%26+branches&format=json");
  }

  @Test
  void braveSendsItsKeyInItsHeaderAndItsMarkedWordsComeBackAsText() throws Exception {
    WebSearch brave = configured("brave", base + "/res/v1/web/search", Map.of("BRAVE_API_KEY", "bk-1"));
    assertThat(brave.toString()).doesNotContain("bk-1");
    assertThat(search(brave, "query").content()).contains("1. Brave one", "https://c.example/", "the query here")
        .doesNotContain("<strong>");
    assertThat(seen).singleElement().asString().contains("q=query", "count=10", "token=bk-1");
  }

  @Test
  void tavilyIsAskedByPostWithABearerKey() throws Exception {
    WebSearch tavily = configured("tavily", base + "/tavily", Map.of("TAVILY_API_KEY", "tv-2"));
    assertThat(search(tavily, "q").content()).contains("1. Tavily hit", "https://d.example/", "tavily says");
    assertThat(seen).singleElement().asString().contains("\"query\":\"q\"", "\"max_results\":10", "auth=Bearer tv-2");
  }

  @Test
  void aMissingKeyOrUrlOrUnknownProviderIsSaidAndABrokenBackendIsAnError() throws Exception {
    assertThat(WebSearch.configure("brave", null, null, Map.of()).problem()).get().asString()
        .contains("needs its key in BRAVE_API_KEY");
    assertThat(WebSearch.configure("tavily", null, "MY_TAVILY", Map.of()).problem()).get().asString().contains("MY_TAVILY");
    assertThat(WebSearch.configure("searxng", null, null, Map.of()).problem()).get().asString().contains("needs the url");
    assertThat(WebSearch.configure("google", null, null, Map.of()).problem()).get().asString().contains("unknown provider");
    assertThat(WebSearch.configure("brave", null, null, Map.of("BRAVE_API_KEY", "k")).search().orElseThrow().url())
        .hasToString(WebSearch.BRAVE_URL);

    ToolResult broken = search(configured("searxng", base + "/broken", Map.of()), "x");
    assertThat(broken.isError()).isTrue();
    assertThat(broken.content()).contains("HTTP 502");
    server.stop(0);
    ToolResult down = search(configured("searxng", base, Map.of()), "x");
    assertThat(down.isError()).isTrue();
    assertThat(down.content()).contains("could not be reached");
  }
}
