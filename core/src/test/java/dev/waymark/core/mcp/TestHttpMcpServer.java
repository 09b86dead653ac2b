package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal streamable-HTTP MCP server on 127.0.0.1, on the JDK's own HTTP server (the SDK's HTTP
 * server transport needs a servlet container): JSON-RPC over POST, each answer as one JSON body.
 * It has one tool, {@code echo}, one prompt, {@code ask}, one resource, {@code http-test://readme}, and
 * remembers the Authorization headers it was sent.
 */
final class TestHttpMcpServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  volatile boolean garbage;

  TestHttpMcpServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/mcp", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      if (auth != null) {
        authorizations.add(auth);
      }
      if (!exchange.getRequestMethod().equals("POST")) {
        exchange.sendResponseHeaders(exchange.getRequestMethod().equals("DELETE") ? 200 : 405, -1);
        return;
      }
      JsonNode request = JSON.readTree(exchange.getRequestBody().readAllBytes());
      if (!request.has("id")) {
        exchange.sendResponseHeaders(202, -1); // a notification
        return;
      }
      ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0");
      answer.set("id", request.get("id"));
      ObjectNode result = answer.putObject("result");
      switch (request.path("method").asText()) {
        case "initialize" -> {
          result.put("protocolVersion", request.path("params").path("protocolVersion").asText("2025-06-18"));
          ObjectNode capabilities = result.putObject("capabilities");
          capabilities.putObject("tools");
          capabilities.putObject("prompts");
          capabilities.putObject("resources");
          result.putObject("serverInfo").put("name", "waymark-http-test").put("version", "1");
        }
        case "tools/list" -> {
          ObjectNode echo = result.putArray("tools").addObject().put("name", "echo").put("description", "echoes");
          echo.putObject("inputSchema").put("type", "object").putObject("properties").putObject("text").put("type", "string");
        }
        case "tools/call" -> result.putArray("content").addObject().put("type", "text")
            .put("text", "http echo: " + request.path("params").path("arguments").path("text").asText());
        case "prompts/list" -> result.putArray("prompts").addObject().put("name", "ask").put("description", "asks about a topic")
            .putArray("arguments").addObject().put("name", "topic").put("required", true);
        case "prompts/get" -> result.putArray("messages").addObject().put("role", "user").putObject("content")
            .put("type", "text").put("text", "Tell me about " + request.path("params").path("arguments").path("topic").asText());
        case "resources/list" -> result.putArray("resources").addObject().put("uri", "http-test://readme").put("name", "readme")
            .put("mimeType", "text/plain");
        case "resources/read" -> result.putArray("contents").addObject().put("uri", request.path("params").path("uri").asText())
            .put("mimeType", "text/plain").put("text", "read over http");
        default -> {
          answer.remove("result");
          answer.putObject("error").put("code", -32601).put("message", "unknown method");
        }
      }
      byte[] body = garbage && request.path("method").asText().equals("tools/call")
          ? "{not json".getBytes(StandardCharsets.UTF_8) : JSON.writeValueAsBytes(answer);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
