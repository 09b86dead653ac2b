package dev.waymark.core.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger log = LoggerFactory.getLogger(OpenAiChatModel.class);
  /** OpenAI's own endpoint, for when no base URL is configured. */
  public static final URI DEFAULT_BASE_URL = URI.create("https://api.openai.com/v1");

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final URI endpoint;
  private final String apiKey;
  private final String defaultModel;
  private final int maxTokens;
  private final HttpTransport transport;
  /**
   * The name the output limit goes under: OpenAI's own API refuses {@code max_tokens} for its
   * reasoning models (o1, o3, gpt-5) and takes {@code max_completion_tokens} for every model; other
   * servers (llama.cpp, Ollama, vLLM, DeepSeek) know {@code max_tokens}. A server that refuses the
   * one sent gets the other, and keeps it.
   */
  private volatile String maxTokensField;

  /**
   * @param baseUrl the API root including any {@code /v1}, e.g. {@code http://localhost:11434/v1}
   * @param apiKeyOrNull sent as a bearer token when not null or blank
   * @param defaultModel used when a {@link ChatRequest} names no model; may be null if all do
   */
  public OpenAiChatModel(URI baseUrl, String apiKeyOrNull, String defaultModel) {
    this(baseUrl, apiKeyOrNull, defaultModel, HttpOptions.defaults());
  }

  public OpenAiChatModel(URI baseUrl, String apiKeyOrNull, String defaultModel, HttpOptions options) {
    this(Endpoint.openAi(baseUrl, apiKeyOrNull), defaultModel, 0, options, UnaryOperator.identity());
  }

  /** @param maxTokens the output limit asked for when positive; 0 leaves the limit to the server */
  public OpenAiChatModel(URI baseUrl, String apiKeyOrNull, String defaultModel, int maxTokens, HttpOptions options) {
    this(Endpoint.openAi(baseUrl, apiKeyOrNull), defaultModel, maxTokens, options, UnaryOperator.identity());
  }

  /** @param maxTokens the output limit asked for when positive; 0 leaves the limit to the server */
  public OpenAiChatModel(Endpoint endpoint, String defaultModel, int maxTokens, HttpOptions options) {
    this(endpoint, defaultModel, maxTokens, options, UnaryOperator.identity());
  }

  /** For tests: {@code actualDelay} maps each retry delay to the one really waited. */
  OpenAiChatModel(
      URI baseUrl,
      String apiKeyOrNull,
      String defaultModel,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    this(Endpoint.openAi(baseUrl, apiKeyOrNull), defaultModel, 0, options, actualDelay);
  }

  OpenAiChatModel(
      URI baseUrl,
      String apiKeyOrNull,
      String defaultModel,
      int maxTokens,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    this(Endpoint.openAi(baseUrl, apiKeyOrNull), defaultModel, maxTokens, options, actualDelay);
  }

  OpenAiChatModel(
      Endpoint endpoint,
      String defaultModel,
      int maxTokens,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    Objects.requireNonNull(endpoint);
    if (maxTokens < 0) {
      throw new IllegalArgumentException("maxTokens must not be negative");
    }
    this.maxTokens = maxTokens;
    this.apiKey = endpoint.apiKey();
    this.defaultModel = defaultModel;
    this.endpoint = chatCompletions(endpoint.baseUrl());
    this.maxTokensField = initialMaxTokensField(endpoint.baseUrl());
    this.transport =
        new HttpTransport(
            new ServerTarget(
                "the OpenAI-compatible server", endpoint.baseUrl(), endpoint.keyName(), endpoint.baseUrlName()),
            apiKey,
            options,
            actualDelay);
  }

  static final String MAX_TOKENS = "max_tokens";
  static final String MAX_COMPLETION_TOKENS = "max_completion_tokens";

  /** {@code max_completion_tokens} for OpenAI's own API, {@code max_tokens} for every other server. */
  static String initialMaxTokensField(URI baseUrl) {
    String host = baseUrl.getHost() == null ? "" : baseUrl.getHost().toLowerCase(Locale.ROOT);
    return host.equals("api.openai.com") ? MAX_COMPLETION_TOKENS : MAX_TOKENS;
  }

  /**
   * Whether a refusal says the server does not take the parameter {@code field} (OpenAI: "Unsupported
   * parameter: 'max_tokens' ... Use 'max_completion_tokens' instead"; a strict server: "extra inputs
   * are not permitted"), rather than that its value is wrong.
   */
  static boolean refusesParameter(ModelException e, String field) {
    if (e.kind() != ModelException.Kind.BAD_REQUEST || e.getMessage() == null) {
      return false;
    }
    String m = e.getMessage().toLowerCase(Locale.ROOT);
    String other = field.equals(MAX_TOKENS) ? MAX_COMPLETION_TOKENS : MAX_TOKENS;
    return names(m, field)
        && (names(m, other)
            || m.matches("(?s).*(unsupported|not supported|unknown|unrecognized|extra (inputs|fields)|not permitted"
                + "|not allowed).*"));
  }

  private static boolean names(String message, String field) {
    return Pattern.compile("(?<![a-z_])" + field + "(?![a-z_])").matcher(message).find();
  }

  /** The endpoint under {@code baseUrl}; a base URL that already is it (a pasted full URL) is taken as it is. */
  static URI chatCompletions(URI baseUrl) {
    String base = baseUrl.toString().replaceFirst("/+$", "");
    return base.endsWith("/chat/completions") ? URI.create(base) : resolve(baseUrl, "chat/completions");
  }

  static URI resolve(URI baseUrl, String path) {
    String base = baseUrl.toString();
    return URI.create(base.endsWith("/") ? base + path : base + "/" + path);
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
    String model = modelOf(request, defaultModel);
    String field = maxTokensField;
    try {
      return send(model, request, field, listener, cancellation);
    } catch (ModelException e) {
      if (maxTokens <= 0 || !refusesParameter(e, field)) {
        throw e;
      }
      String other = field.equals(MAX_TOKENS) ? MAX_COMPLETION_TOKENS : MAX_TOKENS;
      log.info("{} refused {}; sending the output limit as {} from now on", endpoint, field, other);
      maxTokensField = other;
      return send(model, request, other, listener, cancellation);
    }
  }

  private ChatResponse send(
      String model, ChatRequest request, String maxTokensField, StreamListener listener, Cancellation cancellation) {
    byte[] body;
    try {
      ObjectNode json = requestBody(model, request);
      if (maxTokens > 0) {
        json.put(maxTokensField, maxTokens);
      }
      body = ModelJson.JSON.writeValueAsBytes(json);
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
    } else if (m instanceof ChatMessage.User u && !u.images().isEmpty()) {
      // content parts, as OpenAI's vision models and the compatible servers take them
      ArrayNode parts = node.put("role", "user").putArray("content");
      parts.addObject().put("type", "text").put("text", u.text());
      for (ChatMessage.Image image : u.images()) {
        parts.addObject().put("type", "image_url").putObject("image_url")
            .put("url", "data:" + image.mediaType() + ";base64," + image.base64());
      }
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
