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
import java.util.Locale;
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
 * <p>Extended thinking is asked for when a thinking budget is set; thinking blocks come back as
 * {@link ChatMessage.Reasoning} with their signature (or redacted data) and are sent back
 * unchanged at the head of their assistant message, as the API requires while a tool loop runs.
 *
 * <p>{@link ChatResponse#stopReason()} is Anthropic's {@code stop_reason} as sent ({@code
 * end_turn}, {@code tool_use}, {@code max_tokens}, ...). Usage counts cached input tokens as
 * input, and says how many were read from and written to the prompt cache.
 *
 * <p>Prompt caching: the last tool, the system prompt and the last message's last block carry
 * {@code cache_control}. The body is a function of the conversation alone (no ids, no times), so
 * a request whose conversation starts as an earlier one's did starts with the same bytes.
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

  /** The least thinking budget the API accepts. */
  public static final int MIN_THINKING_BUDGET = 1024;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final URI endpoint;
  private final String apiKey;
  private final String defaultModel;
  private final int maxTokens;
  private final int thinkingBudget;
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
    this(Endpoint.anthropic(baseUrl, apiKey), defaultModel, maxTokens, 0, options, UnaryOperator.identity());
  }

  /**
   * @param maxTokens the output limit asked for; 0 for {@link #defaultMaxTokens} of the request's
   *     model (plus the thinking budget when thinking is on)
   * @param thinkingBudget 0 for no extended thinking, else the tokens Claude may think with (at
   *     least {@link #MIN_THINKING_BUDGET}, and below {@code maxTokens} when that is set)
   */
  public AnthropicChatModel(
      Endpoint endpoint, String defaultModel, int maxTokens, int thinkingBudget, HttpOptions options) {
    this(endpoint, defaultModel, maxTokens, thinkingBudget, options, UnaryOperator.identity());
  }

  /** For tests: {@code actualDelay} maps each retry delay to the one really waited. */
  AnthropicChatModel(
      URI baseUrl,
      String apiKey,
      String defaultModel,
      int maxTokens,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    this(Endpoint.anthropic(baseUrl, apiKey), defaultModel, maxTokens, 0, options, actualDelay);
  }

  AnthropicChatModel(
      Endpoint endpoint,
      String defaultModel,
      int maxTokens,
      int thinkingBudget,
      HttpOptions options,
      UnaryOperator<Duration> actualDelay) {
    Objects.requireNonNull(endpoint);
    if (maxTokens < 0) {
      throw new IllegalArgumentException("maxTokens must not be negative");
    }
    checkThinking(maxTokens, thinkingBudget);
    this.apiKey = endpoint.apiKey();
    this.defaultModel = defaultModel;
    this.maxTokens = maxTokens;
    this.thinkingBudget = thinkingBudget;
    this.endpoint = messages(endpoint.baseUrl());
    this.transport =
        new HttpTransport(
            new ServerTarget(
                "the Anthropic API", endpoint.baseUrl(), endpoint.keyName(), endpoint.baseUrlName()),
            this.apiKey,
            options,
            actualDelay);
  }

  /**
   * The Messages endpoint under {@code baseUrl}, which goes without {@code /v1}; one given with it,
   * or as the full endpoint (as OpenAI-compatible base URLs are written), is understood as well.
   */
  static URI messages(URI baseUrl) {
    String base = baseUrl.toString().replaceFirst("/+$", "");
    if (base.endsWith("/v1/messages")) {
      return URI.create(base);
    }
    return URI.create(base.endsWith("/v1") ? base + "/messages" : base + "/v1/messages");
  }

  /**
   * The limits Anthropic puts on thinking, checked before any request: a budget of at least 1024
   * tokens, below the output limit (thinking counts against it).
   *
   * @throws IllegalArgumentException saying which limit is broken
   */
  public static void checkThinking(int maxTokens, int thinkingBudget) {
    if (thinkingBudget == 0) {
      return;
    }
    if (thinkingBudget < MIN_THINKING_BUDGET) {
      throw new IllegalArgumentException("the thinking budget must be 0 (off) or at least " + MIN_THINKING_BUDGET
          + " tokens, not " + thinkingBudget);
    }
    if (maxTokens > 0 && maxTokens <= thinkingBudget) {
      throw new IllegalArgumentException("the thinking budget (" + thinkingBudget + " tokens) must be below maxTokens ("
          + maxTokens + "), since thinking counts against it");
    }
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
    String model = OpenAiChatModel.modelOf(request, defaultModel);
    byte[] body;
    try {
      boolean thinking = thinkingBudget > 0 && canThink(request);
      ObjectNode json = requestBody(model, maxTokensFor(model), request, thinking);
      if (thinking) {
        // the API then refuses temperature, top_k and a forced tool_choice: none of them is sent
        json.putObject("thinking").put("type", "enabled").put("budget_tokens", thinkingBudget);
      }
      body = ModelJson.JSON.writeValueAsBytes(json);
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
        (in, contentType, progress) -> new AnthropicStream(listener, progress, transport).read(in, contentType),
        listener,
        cancellation);
  }

  /** The configured limit, else the model's default plus any thinking budget, which counts against it. */
  private int maxTokensFor(String model) {
    return maxTokens > 0 ? maxTokens : defaultMaxTokens(model) + thinkingBudget;
  }

  /** The output limit asked for when none is configured: Claude 3 models refuse more than 4096. */
  public static int defaultMaxTokens(String model) {
    String m = model.toLowerCase(Locale.ROOT);
    boolean claude3 = m.startsWith("claude-3-") && !m.startsWith("claude-3-5") && !m.startsWith("claude-3-7");
    return claude3 ? CLAUDE_3_MAX_TOKENS : DEFAULT_MAX_TOKENS;
  }

  /**
   * Whether thinking may be asked for: with it, the API wants the assistant message before the
   * last tool results to start with its signed thinking block, which a call made while thinking
   * was off (a session resumed mid-turn) does not have. Such a request goes without thinking.
   */
  static boolean canThink(ChatRequest request) {
    List<ChatMessage> messages = request.messages();
    boolean toolResults = false;
    for (int i = messages.size() - 1; i >= 0; i--) {
      ChatMessage m = messages.get(i);
      if (m instanceof ChatMessage.ToolResult) {
        toolResults = true;
      } else if (m instanceof ChatMessage.Assistant a) {
        return !toolResults || a.reasoning().stream().anyMatch(AnthropicChatModel::isSigned);
      } else if (!(m instanceof ChatMessage.User)) {
        return true;
      }
    }
    return true;
  }

  private static boolean isSigned(ChatMessage.Reasoning r) {
    return r.redacted() != null || (r.signature() != null && !r.signature().isEmpty());
  }

  /** The Messages request without thinking blocks, as sent when thinking is off. */
  static ObjectNode requestBody(String model, int maxTokens, ChatRequest request) {
    return requestBody(model, maxTokens, request, false);
  }

  /**
   * The Messages request, exactly as sent. With {@code thinking}, the thinking blocks of assistant
   * messages go back unchanged before their text and tool use; without it they stay out, since the
   * API refuses thinking blocks in a request that does not think.
   */
  static ObjectNode requestBody(String model, int maxTokens, ChatRequest request, boolean thinking) {
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
        ArrayNode content = contentOf(messages, "user");
        for (ChatMessage.Image image : u.images()) { // images first: Anthropic's advice for the best answers
          content.addObject().put("type", "image").putObject("source").put("type", "base64")
              .put("media_type", image.mediaType()).put("data", image.base64());
        }
        content.addObject().put("type", "text").put("text", u.text());
      } else if (m instanceof ChatMessage.Assistant a) {
        if (a.text().isEmpty() && a.toolCalls().isEmpty()) {
          continue; // the API rejects empty content; the turns around it merge instead
        }
        ArrayNode content = contentOf(messages, "assistant");
        for (ChatMessage.Reasoning r : thinking ? a.reasoning() : List.<ChatMessage.Reasoning>of()) {
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
      cached(root.putArray("system").addObject().put("type", "text").put("text", String.join("\n\n", system)));
    }
    markLastBlock(messages);
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
      cached((ObjectNode) tools.get(tools.size() - 1));
    }
    return root;
  }

  /**
   * Prompt caching: a breakpoint closes the prefix the API caches (tools, then system, then
   * messages), so the tools, the system prompt and the conversation so far are each marked; the
   * next request, which only appends, reads them back at a tenth of the price. Three marks of the
   * four the API allows.
   */
  private static ObjectNode cached(ObjectNode block) {
    block.putObject("cache_control").put("type", "ephemeral");
    return block;
  }

  /** The last message's last block, unless it is a thinking block, which cannot carry a mark. */
  private static void markLastBlock(ArrayNode messages) {
    if (messages.isEmpty()) {
      return;
    }
    JsonNode content = messages.get(messages.size() - 1).path("content");
    if (content.isArray() && !content.isEmpty()) {
      JsonNode last = content.get(content.size() - 1);
      String type = last.path("type").asText();
      if (!type.equals("thinking") && !type.equals("redacted_thinking")) {
        cached((ObjectNode) last);
      }
    }
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
      JsonNode node = ModelJson.JSON.readTree(call.argumentsJson());
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
