package dev.waymark.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The models a server offers, for {@code /model} without a name: {@code GET /models} of an
 * OpenAI-compatible server (Ollama's and vLLM's too), or Anthropic's models list. Both answer
 * {@code {"data": [{"id": ...}, ...]}}. A server that cannot list says so in the exception's message.
 */
public final class ServerModels {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  /** A list is a few kilobytes; more is not a model list. */
  private static final int MAX_BYTES = 4 * 1024 * 1024;

  private ServerModels() {}

  /** The ids the server at {@code endpoint} lists, sorted; {@code anthropic}: Anthropic's headers. */
  public static List<String> list(Endpoint endpoint, boolean anthropic) throws IOException, InterruptedException {
    String base = endpoint.baseUrl().toString().replaceAll("/+$", "");
    base = base.replaceAll("/(chat/completions|v1/messages)$", anthropic ? "/v1" : ""); // as the chat clients take it
    URI uri = URI.create(anthropic && !base.endsWith("/v1") ? base + "/v1/models" : base + "/models");
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().header("Accept", "application/json");
    if (endpoint.apiKey() != null) {
      if (anthropic) {
        request.header("x-api-key", endpoint.apiKey());
      } else {
        request.header("Authorization", "Bearer " + endpoint.apiKey());
      }
    }
    if (anthropic) {
      request.header("anthropic-version", "2023-06-01");
    }
    HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered HTTP " + response.statusCode() + " to a request for its models");
    }
    return parse(response.body(), uri);
  }

  static List<String> parse(byte[] body, URI from) throws IOException {
    if (body.length > MAX_BYTES) {
      throw new IOException(from + " sent more than a model list");
    }
    JsonNode data;
    try {
      data = JSON.readTree(body).path("data");
    } catch (IOException e) {
      throw new IOException(from + " did not answer with a model list (not JSON)");
    }
    if (!data.isArray()) {
      throw new IOException(from + " did not answer with a model list (no \"data\" array)");
    }
    List<String> ids = new ArrayList<>();
    data.forEach(model -> {
      if (model.path("id").isTextual() && !model.path("id").asText().isBlank()) {
        ids.add(model.path("id").asText());
      }
    });
    return ids.stream().distinct().sorted().toList();
  }
}
