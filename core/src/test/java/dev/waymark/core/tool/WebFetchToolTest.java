package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.waymark.core.permission.PermissionRule;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** web_fetch against a real HTTP server on loopback, which only a listed host may reach. */
class WebFetchToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  HttpServer server;
  String base;
  final CountDownLatch released = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/page", exchange -> reply(exchange, 200, "text/html; charset=utf-8", """
        <html><head><title>Release notes</title><script>var secret = 1;</script></head>
        <body><nav>Home | Docs</nav><main><h2>Version 2</h2><p>Faster <b>undo</b>, see <a href="/docs">the docs</a>.</p>
        <ul><li>one</li><li>two</li></ul><pre>mvn verify
        </pre></main></body></html>"""));
    server.createContext("/plain", exchange -> reply(exchange, 200, "text/plain", "just text\n"));
    server.createContext("/big", exchange -> reply(exchange, 200, "text/plain", "x".repeat(5000)));
    server.createContext("/binary", exchange -> reply(exchange, 200, "image/png", "\u0089PNG"));
    server.createContext("/missing", exchange -> reply(exchange, 404, "text/plain", "no such page"));
    server.createContext("/hop", exchange -> {
      exchange.getResponseHeaders().add("Location", "/plain");
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    server.createContext("/to-localhost", exchange -> {
      exchange.getResponseHeaders().add("Location", "http://localhost:" + server.getAddress().getPort() + "/plain");
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    server.createContext("/loop", exchange -> {
      exchange.getResponseHeaders().add("Location", "/loop");
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    server.createContext("/hang", exchange -> {
      try {
        released.await(); // answered when the test ends: the tool must give up first
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
    });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    released.countDown();
    server.stop(0);
  }

  private static void reply(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private ToolResult fetch(WebAccess access, String json) throws Exception {
    return new WebFetchTool(access, ToolSettings.DEFAULTS).run(JSON.readTree(json), new ToolContext(temp, null, null));
  }

  private ToolResult fetchAllowed(String path) throws Exception {
    return fetch(new WebAccess(List.of("127.0.0.1"), Duration.ofSeconds(20), 5), "{\"url\": \"" + base + path + "\"}");
  }

  @Test
  void aPageComesBackAsMarkdownLikeTextWithItsUrlAndTypeAndNoScriptsOrNavigation() throws Exception {
    ToolResult result = fetchAllowed("/page");
    assertThat(result.isError()).isFalse();
    assertThat(result.content()).startsWith("Fetched " + base + "/page\nContent-Type: text/html; charset=utf-8")
        .contains("# Release notes", "## Version 2", "Faster undo, see the docs (" + base + "/docs).", "- one\n- two",
            "```\nmvn verify")
        .doesNotContain("secret", "Home | Docs");
  }

  @Test
  void redirectsAreFollowedAndTheFinalUrlSaidButEachHopIsCheckedAgain() throws Exception {
    assertThat(fetchAllowed("/hop").content()).startsWith("Fetched " + base + "/plain (after redirects)").contains("just text");
    ToolResult toLocalhost = fetchAllowed("/to-localhost");
    assertThat(toLocalhost.isError()).isTrue();
    assertThat(toLocalhost.content()).contains("not a public address", "reached by a redirect").doesNotContain("just text");
    assertThat(fetchAllowed("/loop").content()).contains("more than 5 redirects");
  }

  @Test
  void loopbackAndPrivateAddressesAreRefusedUnlessTheHostIsListed() throws Exception {
    ToolResult refused = fetch(WebAccess.DEFAULTS, "{\"url\": \"" + base + "/plain\"}");
    assertThat(refused.isError()).isTrue();
    assertThat(refused.content()).contains("127.0.0.1 is at 127.0.0.1, not a public address", "web.allowHosts");
    for (String literal : List.of("10.1.2.3", "192.168.0.1", "172.16.5.4", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1",
        "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1")) {
      assertThat(WebAccess.isPublic(InetAddress.getByName(literal))).as(literal).isFalse();
    }
    for (String literal : List.of("8.8.8.8", "1.1.1.1", "2001:4860:4860::8888")) {
      assertThat(WebAccess.isPublic(InetAddress.getByName(literal))).as(literal).isTrue();
    }
    assertThat(fetch(WebAccess.DEFAULTS, "{\"url\": \"file:///etc/passwd\"}").content()).contains("only http and https");
    assertThat(fetch(WebAccess.DEFAULTS, "{\"url\": \"http://user:pw@example.com/\"}").content()).contains("user name");
  }

  @Test
  void sizeAndTimeAreBoundedAndErrorsAndBinariesAreSaid() throws Exception {
    ToolResult big = fetch(new WebAccess(List.of("127.0.0.1"), Duration.ofSeconds(20), 5),
        "{\"url\": \"" + base + "/big\", \"max_bytes\": 100}");
    assertThat(big.content()).contains("100 bytes (cut at max_bytes 100)").doesNotContain("x".repeat(101));
    assertThat(fetchAllowed("/binary").content()).contains("Binary content (image/png); not shown.");
    assertThat(fetchAllowed("/missing").content()).startsWith("HTTP 404 from " + base + "/missing").contains("no such page");
    ToolResult slow = fetch(new WebAccess(List.of("127.0.0.1"), Duration.ofSeconds(1), 5), "{\"url\": \"" + base + "/hang\"}");
    assertThat(slow.isError()).isTrue();
    assertThat(slow.content()).contains("took longer than 1 s");
  }

  @Test
  void itAsksInEveryModeButYoloIsRefusedInPlanAndARuleAllowsADomain() throws Exception {
    WebFetchTool tool = new WebFetchTool(WebAccess.DEFAULTS, ToolSettings.DEFAULTS);
    assertThat(tool.kind()).isEqualTo(ToolKind.NETWORK);
    assertThat(ApprovalMode.PLAN.allows(ToolKind.NETWORK)).isFalse();
    assertThat(List.of(ApprovalMode.ASK, ApprovalMode.AUTO_EDIT, ApprovalMode.AUTO))
        .allMatch(mode -> mode.needsApproval(ToolKind.NETWORK));
    assertThat(ApprovalMode.YOLO.needsApproval(ToolKind.NETWORK)).isFalse();

    var subject = tool.ruleSubject(JSON.readTree("{\"url\": \"https://Docs.Example.com/a?b\"}"));
    assertThat(subject).contains("domain:docs.example.com");
    PermissionRule rule = PermissionRule.parse("web_fetch(domain:docs.example.com)");
    assertThat(rule.allows("web_fetch", subject)).isTrue();
    assertThat(rule.allows("web_fetch", Optional.of("domain:evil.example.com"))).isFalse();
    assertThat(PermissionRule.suggest("web_fetch", subject)).isEqualTo(rule);
  }
}
