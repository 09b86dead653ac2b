package dev.waymark.core.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model behind Anthropic's Messages API ({@code POST {baseUrl}/v1/messages}, streamed).
 *
 * <p>Mapping: system messages become the top-level {@code system} (joined by blank lines); an
 * assistant's tool calls become {@code tool_use} blocks; tool results become {@code tool_result}
 * blocks of a user message, and consecutive results (plus any user text right after them) share
 * one user message, because the API wants user and assistant turns to alternate.
 *
 * <p>{@link ChatResponse#stopReason()} is Anthropic's {@code stop_reason} as sent ({@code
 * end_turn}, {@code tool_use}, {@code max_tokens}, ...). Usage counts cached input tokens as
 * input.
 */
public final class AnthropicChatModel implements ChatModel {
  private static final Logger log = LoggerFactory.getLogger(AnthropicChatModel.class);

  /** Anthropic's endpoint root, for when no base URL is configured. */
  public static final URI DEFAULT_BASE_URL = URI.create("https://api.anthropic.com");

  /** The API version this client speaks. */
  public static final String API_VERSION = "2023-06-01";

  /** The API requires max_tokens; this leaves room for long file writes. */
  public static final int DEFAULT_MAX_TOKENS = 8192;

  /** What the Claude 3 models (Haiku, Sonnet, Opus; not 3.5 or later) accept at most. */
  public static final int CLAUDE_3_MAX_TOKENS = 4096;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final URI endpoint;
  private final String apiKey;
  private final String defaultModel;
  private final int maxTokens;
  private final HttpTransport transport;

  /**
   * @param baseUrl the API root without {@code /v1}, e.g. {@link #DEFAULT_BASE_URL}
   * @param apiKey sent as {@code x-api-key} when not null or blank
   * @param defaultModel used when a {@link ChatRequest} names no model; may be null if all do
   */
  public AnthropicChatModel(URI baseUrl, String apiKey, String defaultModel) {
    this(baseUrl, apiKey, defaultModel, 0, HttpOptions.defaults());
  }

  /** @param maxTokens the output limit asked for; 0 for {@link #defaultMaxTokens} of the request's model */
  public AnthropicChatModel(
      URI baseUrl, String apiKey, String defaultModel, int maxTokens, HttpOptions options) {
    this(baseUrl, apiKey, defaultModel, maxTokens, options, UnaryOperator.identity());
  }

  /** For tests: {@code actualDelay} maps each retry delay to the one really waited. */
  AnthropicChatModel(
      URI baseUrl,
      String apiKey,
      String defaultModel,
      int maxTokens,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    Objects.requireNonNull(baseUrl);
    if (maxTokens < 0) {
      throw new IllegalArgumentException("maxTokens must not be negative");
    }
    this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
    this.defaultModel = defaultModel;
    this.maxTokens = maxTokens;
    this.endpoint = OpenAiChatModel.resolve(baseUrl, "v1/messages");
    this.transport =
        new HttpTransport(
            new HttpTransport.Target(
                "the Anthropic API", baseUrl, "ANTHROPIC_API_KEY", "--base-url or ANTHROPIC_BASE_URL"),
            this.apiKey,
            options,
            actualDelay);
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
    String model = OpenAiChatModel.modelOf(request, defaultModel);
    byte[] body;
    try {
      body = HttpTransport.JSON.writeValueAsBytes(
          requestBody(model, maxTokens > 0 ? maxTokens : defaultMaxTokens(model), request));
    } catch (JsonProcessingException e) {
      throw new ModelException(ModelException.Kind.BAD_REQUEST, "could not encode the request", e);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("anthropic-version", API_VERSION);
    if (apiKey != null) {
      headers.put("x-api-key", apiKey);
    }
    return transport.post(
        endpoint,
        model,
        headers,
        body,
        (in, contentType, progress) -> new AnthropicStream(listener, progress).read(in),
        listener,
        cancellation);
  }

  /** The output limit asked for when none is configured: Claude 3 models refuse more than 4096. */
  public static int defaultMaxTokens(String model) {
    String m = model.toLowerCase(java.util.Locale.ROOT);
    boolean claude3 = m.startsWith("claude-3-") && !m.startsWith("claude-3-5") && !m.startsWith("claude-3-7");
    return claude3 ? CLAUDE_3_MAX_TOKENS : DEFAULT_MAX_TOKENS;
  }

  /** The Messages request, exactly as sent. */
  static ObjectNode requestBody(String model, int maxTokens, ChatRequest request) {
    ObjectNode root = NODES.objectNode();
    root.put("model", model);
    root.put("max_tokens", maxTokens);
    root.put("stream", true);
    List<String> system = new ArrayList<>();
    ArrayNode messages = NODES.arrayNode();
    for (ChatMessage m : request.messages()) {
      if (m instanceof ChatMessage.System s) {
        system.add(s.text());
      } else if (m instanceof ChatMessage.User u) {
        contentOf(messages, "user").addObject().put("type", "text").put("text", u.text());
      } else if (m instanceof ChatMessage.Assistant a) {
        if (a.text().isEmpty() && a.toolCalls().isEmpty()) {
          continue; // the API rejects empty content; the turns around it merge instead
        }
        ArrayNode content = contentOf(messages, "assistant");
        for (ChatMessage.Reasoning r : a.reasoning()) {
          // thinking blocks go back first and unchanged, or the API refuses the tool_use after them
          if (r.redacted() != null) {
            content.addObject().put("type", "redacted_thinking").put("data", r.redacted());
          } else if (r.signature() != null && !r.signature().isEmpty()) {
            content.addObject().put("type", "thinking").put("thinking", r.text()).put("signature", r.signature());
          }
        }
        if (!a.text().isEmpty()) {
          content.addObject().put("type", "text").put("text", a.text());
        }
        for (ToolCall c : a.toolCalls()) {
          content
              .addObject()
              .put("type", "tool_use")
              .put("id", c.id())
              .put("name", c.name())
              .set("input", input(c));
        }
      } else if (m instanceof ChatMessage.ToolResult r) {
        ObjectNode block =
            contentOf(messages, "user")
                .addObject()
                .put("type", "tool_result")
                .put("tool_use_id", r.toolCallId())
                .put("content", r.content());
        if (r.isError()) {
          block.put("is_error", true);
        }
      }
    }
    if (!system.isEmpty()) {
      root.put("system", String.join("\n\n", system));
    }
    root.set("messages", messages);
    if (!request.tools().isEmpty()) {
      ArrayNode tools = root.putArray("tools");
      for (ToolSpec t : request.tools()) {
        ObjectNode tool = tools.addObject().put("name", t.name());
        if (t.description() != null) {
          tool.put("description", t.description());
        }
        tool.set(
            "input_schema",
            t.parameters() != null ? t.parameters() : NODES.objectNode().put("type", "object"));
      }
    }
    return root;
  }

  /** The content array of the last message if it has {@code role}, else of a new one. */
  private static ArrayNode contentOf(ArrayNode messages, String role) {
    if (!messages.isEmpty()) {
      JsonNode last = messages.get(messages.size() - 1);
      if (role.equals(last.path("role").asText())) {
        return (ArrayNode) last.get("content");
      }
    }
    ObjectNode message = messages.addObject().put("role", role);
    return message.putArray("content");
  }

  /** The API wants the input as an object; a call whose arguments were not one gets {@code {}}. */
  private static JsonNode input(ToolCall call) {
    try {
      JsonNode node = HttpTransport.JSON.readTree(call.argumentsJson());
      if (node != null && node.isObject()) {
        return node;
      }
    } catch (IOException e) {
      // fall through
    }
    log.debug("tool call {} had arguments that are not a JSON object; sending {{}}", call.id());
    return NODES.objectNode();
  }
}
