package dev.waymark.core.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A model behind an OpenAI-compatible Chat Completions endpoint: OpenAI itself, Ollama
 * ({@code http://localhost:11434/v1}), llama.cpp's server, vLLM, LM Studio and the like.
 *
 * <p>It relies only on the public API's common ground: {@code POST {baseUrl}/chat/completions}
 * with {@code stream: true}, tools as {@code function} tools, and a server-sent-events answer.
 * Whatever servers omit (tool call ids, usage, {@code [DONE]} after a finish reason) is tolerated;
 * see {@link OpenAiStream}. A server that ignores {@code stream: true} and answers with one JSON
 * completion is understood too. The {@code Authorization} header is sent only when a key is set, since
 * local servers need none. HTTP/1.1 is forced because several local servers mishandle h2c upgrades.
 *
 * <p>{@link ChatResponse#stopReason()} is the server's {@code finish_reason} as sent ({@code stop},
 * {@code tool_calls}, {@code length}, ...). A failed tool result is sent as its content unchanged;
 * the Chat Completions API has no error flag.
 */
public final class OpenAiChatModel implements ChatModel {
  /** OpenAI's own endpoint, for when no base URL is configured. */
  public static final URI DEFAULT_BASE_URL = URI.create("https://api.openai.com/v1");

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final URI endpoint;
  private final String apiKey;
  private final String defaultModel;
  private final int maxTokens;
  private final HttpTransport transport;

  /**
   * @param baseUrl the API root including any {@code /v1}, e.g. {@code http://localhost:11434/v1}
   * @param apiKeyOrNull sent as a bearer token when not null or blank
   * @param defaultModel used when a {@link ChatRequest} names no model; may be null if all do
   */
  public OpenAiChatModel(URI baseUrl, String apiKeyOrNull, String defaultModel) {
    this(baseUrl, apiKeyOrNull, defaultModel, HttpOptions.defaults());
  }

  public OpenAiChatModel(URI baseUrl, String apiKeyOrNull, String defaultModel, HttpOptions options) {
    this(baseUrl, apiKeyOrNull, defaultModel, 0, options, UnaryOperator.identity());
  }

  /** @param maxTokens sent as {@code max_tokens} when positive; 0 leaves the limit to the server */
  public OpenAiChatModel(URI baseUrl, String apiKeyOrNull, String defaultModel, int maxTokens, HttpOptions options) {
    this(baseUrl, apiKeyOrNull, defaultModel, maxTokens, options, UnaryOperator.identity());
  }

  /** For tests: {@code actualDelay} maps each retry delay to the one really waited. */
  OpenAiChatModel(
      URI baseUrl,
      String apiKeyOrNull,
      String defaultModel,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    this(baseUrl, apiKeyOrNull, defaultModel, 0, options, actualDelay);
  }

  OpenAiChatModel(
      URI baseUrl,
      String apiKeyOrNull,
      String defaultModel,
      int maxTokens,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    Objects.requireNonNull(baseUrl);
    if (maxTokens < 0) {
      throw new IllegalArgumentException("maxTokens must not be negative");
    }
    this.maxTokens = maxTokens;
    this.apiKey = apiKeyOrNull == null || apiKeyOrNull.isBlank() ? null : apiKeyOrNull.strip();
    this.defaultModel = defaultModel;
    this.endpoint = resolve(baseUrl, "chat/completions");
    this.transport =
        new HttpTransport(
            new HttpTransport.Target(
                "the OpenAI-compatible server", baseUrl, "OPENAI_API_KEY", "--base-url or OPENAI_BASE_URL"),
            apiKey,
            options,
            actualDelay);
  }

  static URI resolve(URI baseUrl, String path) {
    String base = baseUrl.toString();
    return URI.create(base.endsWith("/") ? base + path : base + "/" + path);
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
    String model = modelOf(request, defaultModel);
    byte[] body;
    try {
      ObjectNode json = requestBody(model, request);
      if (maxTokens > 0) {
        json.put("max_tokens", maxTokens);
      }
      body = HttpTransport.JSON.writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      throw new ModelException(ModelException.Kind.BAD_REQUEST, "could not encode the request", e);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    if (apiKey != null) {
      headers.put("Authorization", "Bearer " + apiKey);
    }
    return transport.post(
        endpoint,
        model,
        headers,
        body,
        (in, contentType, progress) -> new OpenAiStream(listener, progress, transport).read(in, contentType),
        listener,
        cancellation);
  }

  static String modelOf(ChatRequest request, String defaultModel) {
    String model = request.model() != null && !request.model().isBlank() ? request.model() : defaultModel;
    if (model == null || model.isBlank()) {
      throw new ModelException(ModelException.Kind.BAD_REQUEST, "no model is set; pass --model");
    }
    return model;
  }

  /** The Chat Completions request, exactly as sent. */
  static ObjectNode requestBody(String model, ChatRequest request) {
    ObjectNode root = NODES.objectNode();
    root.put("model", model);
    root.put("stream", true);
    root.putObject("stream_options").put("include_usage", true);
    ArrayNode messages = root.putArray("messages");
    for (ChatMessage m : request.messages()) {
      messages.add(message(m));
    }
    if (!request.tools().isEmpty()) {
      ArrayNode tools = root.putArray("tools");
      for (ToolSpec t : request.tools()) {
        ObjectNode function = tools.addObject().put("type", "function").putObject("function");
        function.put("name", t.name());
        if (t.description() != null) {
          function.put("description", t.description());
        }
        function.set(
            "parameters",
            t.parameters() != null ? t.parameters() : NODES.objectNode().put("type", "object"));
      }
    }
    return root;
  }

  private static ObjectNode message(ChatMessage m) {
    ObjectNode node = NODES.objectNode();
    if (m instanceof ChatMessage.System s) {
      node.put("role", "system").put("content", s.text());
    } else if (m instanceof ChatMessage.User u) {
      node.put("role", "user").put("content", u.text());
    } else if (m instanceof ChatMessage.Assistant a) {
      node.put("role", "assistant");
      if (a.text().isEmpty() && !a.toolCalls().isEmpty()) {
        node.putNull("content");
      } else {
        node.put("content", a.text());
      }
      if (!a.toolCalls().isEmpty() && !a.reasoningText().isEmpty()) {
        // DeepSeek's thinking mode wants it back with the calls; elsewhere it is only sent on those
        node.put("reasoning_content", a.reasoningText());
      }
      if (!a.toolCalls().isEmpty()) {
        ArrayNode calls = node.putArray("tool_calls");
        for (ToolCall c : a.toolCalls()) {
          ObjectNode call = calls.addObject().put("id", c.id()).put("type", "function");
          // a call that was not one JSON object was answered as an error; servers such as Ollama
          // reject the whole history with HTTP 400 if its text is sent back as it came
          String arguments = ToolArguments.isOneObject(c.argumentsJson()) ? c.argumentsJson() : "{}";
          call.putObject("function").put("name", c.name()).put("arguments", arguments);
        }
      }
    } else if (m instanceof ChatMessage.ToolResult r) {
      node.put("role", "tool").put("tool_call_id", r.toolCallId()).put("content", r.content());
    }
    return node;
  }
}
