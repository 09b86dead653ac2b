package dev.waymark.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads one Chat Completions stream into a {@link ChatResponse}, passing text on as it arrives.
 *
 * <p>Tool calls arrive as fragments keyed by {@code index}: the first carries id and name, later
 * ones slices of the {@code arguments} string. Servers vary, so: a missing {@code index} falls back
 * to the {@code id}, then to the last call; a missing id is generated; a name or id repeated in
 * every fragment is not appended twice; {@code arguments} sent as an object replaces the text. The
 * stream is complete at {@code [DONE]} or, failing that, at its end after a {@code finish_reason};
 * an end before both is a broken connection.
 */
final class OpenAiStream {
  private static final class CallBuilder {
    String id;
    String name;
    boolean idFromServer;
    final StringBuilder arguments = new StringBuilder();
    boolean started;
  }

  private final StreamListener listener;
  private final HttpTransport.Progress progress;
  private final HttpTransport transport;
  private final StringBuilder text = new StringBuilder();
  private final StringBuilder refusal = new StringBuilder();
  private final StringBuilder reasoning = new StringBuilder();
  private final List<CallBuilder> calls = new ArrayList<>();
  private final Map<Integer, CallBuilder> byIndex = new HashMap<>();
  private String finishReason;
  private ChatResponse.Usage usage;
  /** Whether any choice arrived: a stream or completion without one holds no answer at all. */
  private boolean answered;

  OpenAiStream(StreamListener listener, HttpTransport.Progress progress, HttpTransport transport) {
    this.listener = listener;
    this.progress = progress;
    this.transport = transport;
  }

  ChatResponse read(InputStream in, String contentType) throws IOException {
    if (contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      return readWhole(in);
    }
    SseReader sse = new SseReader(in);
    boolean done = false;
    SseReader.Event event;
    while ((event = sse.next()) != null) {
      String data = event.data().strip();
      if (data.isEmpty()) {
        continue;
      }
      if ("error".equals(event.event())) {
        throw errorEvent(data);
      }
      if (data.equals("[DONE]")) {
        done = true;
        break;
      }
      accept(event.complete() ? parse(data) : parseLast(data));
    }
    if (!done && finishReason == null) {
      throw new IOException("the stream ended before the answer was complete");
    }
    if (!answered) {
      throw new ModelException(ModelException.Kind.PROTOCOL, "the server ended its stream with no answer in it (no "
          + "choices before [DONE])");
    }
    return response();
  }

  /** A server that ignored {@code stream: true}: one completion, read as one big delta. */
  private ChatResponse readWhole(InputStream in) throws IOException {
    String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    JsonNode root;
    try {
      root = parse(body);
    } catch (ModelException notJson) {
      throw transport.wrongServer().notTheApi(null, "a JSON content type but no JSON object (" + Excerpts.oneLine(body) + ")");
    }
    if (!root.hasNonNull("error") && !root.path("choices").isArray()) {
      throw transport.wrongServer().notTheApi(null, "JSON that is not a chat completion (" + Excerpts.oneLine(body) + ")");
    }
    for (JsonNode choice : root.path("choices")) {
      if (choice instanceof ObjectNode c
          && c.get("message") instanceof ObjectNode message) {
        int i = 0;
        for (JsonNode call : message.path("tool_calls")) {
          if (call instanceof ObjectNode o && !o.has("index")) {
            o.put("index", i);
          }
          i++;
        }
        c.set("delta", message);
      }
    }
    accept(root);
    return response();
  }

  /** An {@code error:} field (llama.cpp) or {@code event: error}: its JSON, or its text as it came. */
  private ModelException errorEvent(String data) {
    try {
      JsonNode node = ModelJson.JSON.readTree(data);
      if (node != null && node.isObject()) {
        JsonNode error = node.has("error") ? node.get("error") : node;
        return error(error);
      }
    } catch (IOException notJson) {
      // the text itself is the message
    }
    return transport.failures().streamError("", data);
  }

  private ModelException error(JsonNode error) {
    String message = error.isTextual() ? error.asText() : error.path("message").asText(error.toString());
    String code = error.path("code").asText("") + " " + error.path("type").asText("");
    return transport.failures().streamError(code, message);
  }

  private ChatResponse response() {
    if (refusal.length() > 0) {
      throw new ModelException(ModelException.Kind.REFUSED, "the model refused: "
          + Excerpts.oneLine(refusal.toString()));
    }
    List<ToolCall> toolCalls = new ArrayList<>();
    for (CallBuilder b : calls) {
      if (b.name == null) {
        throw new ModelException(
            ModelException.Kind.PROTOCOL,
            "the server sent a tool call without a name (arguments: "
                + Excerpts.oneLine(b.arguments.toString()) + ")");
      }
      toolCalls.add(new ToolCall(b.id, b.name, b.arguments.toString()));
    }
    if ("content_filter".equals(finishReason) && text.length() == 0 && toolCalls.isEmpty()) {
      throw new ModelException(ModelException.Kind.REFUSED, "the server's content filter stopped the answer before "
          + "it said anything (finish reason \"content_filter\")");
    }
    List<ChatMessage.Reasoning> thought =
        reasoning.length() == 0 ? List.of() : List.of(new ChatMessage.Reasoning(reasoning.toString(), null, null));
    return new ChatResponse(
        new ChatMessage.Assistant(text.toString(), toolCalls, thought),
        Optional.ofNullable(usage),
        finishReason != null ? finishReason : (toolCalls.isEmpty() ? "stop" : "tool_calls"));
  }

  /**
   * The event the stream ended in, without its blank line: when a body ends by closing the
   * connection, a cut there looks like a clean end, so an event that does not parse is a broken
   * connection rather than a malformed event.
   */
  static JsonNode parseLast(String data) throws IOException {
    try {
      return parse(data);
    } catch (ModelException e) {
      throw new IOException("the stream ended in the middle of an event");
    }
  }

  static JsonNode parse(String data) {
    try {
      JsonNode node = ModelJson.JSON.readTree(data);
      if (node == null || !node.isObject()) {
        throw new IOException("not a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw new ModelException(
          ModelException.Kind.PROTOCOL,
          "the server sent a malformed stream event: " + Excerpts.oneLine(
              data.length() > 120 ? data.substring(0, 120) + "..." : data),
          e);
    }
  }

  private void accept(JsonNode chunk) {
    JsonNode error = chunk.get("error");
    if (error != null && !error.isNull()) {
      throw error(error);
    }
    JsonNode u = chunk.get("usage");
    if (u != null && u.isObject()) {
      usage =
          new ChatResponse.Usage(
              u.path("prompt_tokens").asLong(0), u.path("completion_tokens").asLong(0),
              u.path("prompt_tokens_details").path("cached_tokens").asLong(0), 0);
    }
    for (JsonNode choice : chunk.path("choices")) {
      if (choice.path("index").asInt(0) != 0) {
        continue; // we never ask for n > 1
      }
      answered = true;
      JsonNode delta = choice.path("delta");
      JsonNode content = delta.get("content");
      if (content != null && content.isTextual() && !content.asText().isEmpty()) {
        text.append(content.asText());
        progress.delivered();
        listener.textDelta(content.asText());
      }
      // reasoning_content: DeepSeek, vLLM, llama.cpp; reasoning: OpenRouter, Ollama
      JsonNode thinking = delta.hasNonNull("reasoning_content") ? delta.get("reasoning_content") : delta.get("reasoning");
      if (thinking != null && thinking.isTextual() && !thinking.asText().isEmpty()) {
        reasoning.append(thinking.asText());
        progress.delivered();
        listener.reasoningDelta(thinking.asText());
      }
      JsonNode refused = delta.get("refusal");
      if (refused != null && refused.isTextual()) {
        refusal.append(refused.asText());
      }
      for (JsonNode call : delta.path("tool_calls")) {
        acceptToolCall(call);
      }
      JsonNode finish = choice.get("finish_reason");
      if (finish != null && finish.isTextual()) {
        finishReason = finish.asText();
      }
    }
  }

  private void acceptToolCall(JsonNode fragment) {
    String id = textOrNull(fragment.get("id"));
    JsonNode function = fragment.path("function");
    String name = textOrNull(function.get("name"));
    JsonNode arguments = function.get("arguments");
    CallBuilder b = null;
    JsonNode index = fragment.get("index");
    if (index != null && index.canConvertToInt()) {
      b = byIndex.get(index.asInt());
      if (b == null || startsAnotherCall(b, id, arguments)) {
        CallBuilder previous = b;
        b = newCall();
        byIndex.put(index.asInt(), b);
        if (name == null && id == null && previous != null) {
          b.name = previous.name; // a second object under the same index, with nothing else to tell it apart
        }
      }
    } else if (id != null) {
      for (CallBuilder c : calls) {
        if (id.equals(c.id)) {
          b = c;
        }
      }
      if (b == null) {
        b = newCall();
      }
    } else {
      b = calls.isEmpty() ? newCall() : calls.get(calls.size() - 1);
    }
    if (b.id == null && id != null && !b.started) {
      b.id = id;
      b.idFromServer = true;
    }
    if (b.name == null && name != null) {
      b.name = name;
    }
    if (arguments != null && arguments.isTextual()) {
      b.arguments.append(arguments.asText());
    } else if (arguments != null && arguments.isObject()) {
      b.arguments.setLength(0);
      b.arguments.append(arguments.toString());
    }
    if (!b.started && b.name != null) {
      b.started = true;
      if (b.id == null) {
        b.id = "call_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
      }
      progress.delivered();
      listener.toolCallStarted(b.id, b.name);
    }
  }

  /**
   * Whether a fragment under an index already taken begins a new call: Ollama sends parallel calls
   * all at {@code index: 0}, each whole and with its own id; others start a second JSON object once
   * the first has closed.
   */
  private static boolean startsAnotherCall(CallBuilder b, String id, JsonNode arguments) {
    if (id != null && b.idFromServer && !id.equals(b.id)) {
      return true;
    }
    if (id != null || arguments == null || b.arguments.length() == 0) {
      return false;
    }
    String next = arguments.isObject() ? "{" : arguments.asText("").stripLeading();
    return next.startsWith("{") && b.arguments.toString().stripTrailing().endsWith("}")
        && ToolArguments.isOneObject(b.arguments.toString());
  }

  private CallBuilder newCall() {
    CallBuilder b = new CallBuilder();
    calls.add(b);
    return b;
  }

  private static String textOrNull(JsonNode node) {
    return node != null && node.isTextual() && !node.asText().isEmpty() ? node.asText() : null;
  }
}
