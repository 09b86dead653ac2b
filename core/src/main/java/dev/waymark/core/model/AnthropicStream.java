package dev.waymark.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads one Messages stream into a {@link ChatResponse}: {@code message_start} (input usage),
 * {@code content_block_start/delta/stop} (text, or a tool_use whose input arrives as JSON
 * fragments, or a thinking block with its signature), {@code message_delta} (stop reason, output
 * usage), {@code message_stop}. {@code ping} and unknown events are ignored, as Anthropic's
 * versioning policy asks. An
 * {@code error} event becomes a {@link ModelException}; the stream must end with {@code
 * message_stop}, else the connection counts as broken.
 */
final class AnthropicStream {
  private static final class Block {
    String type;
    String id;
    String name;
    final StringBuilder text = new StringBuilder();
    final StringBuilder signature = new StringBuilder();
    String redacted;
  }

  private final StreamListener listener;
  private final HttpTransport.Progress progress;
  private final Map<Integer, Block> blocks = new TreeMap<>();
  private long inputTokens = -1;
  private long outputTokens = -1;
  private long cacheRead;
  private long cacheWrite;
  private String stopReason;

  private final HttpTransport transport;

  AnthropicStream(StreamListener listener, HttpTransport.Progress progress, HttpTransport transport) {
    this.listener = listener;
    this.progress = progress;
    this.transport = transport;
  }

  ChatResponse read(InputStream in, String contentType) throws IOException {
    if (contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      // the API streams what it was asked to stream; a JSON answer comes from something else
      String body = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
      throw transport.wrongServer().notTheApi(null, "JSON instead of an event stream (" + Excerpts.oneLine(body) + ")");
    }
    SseReader sse = new SseReader(in);
    SseReader.Event event;
    boolean stopped = false;
    while (!stopped && (event = sse.next()) != null) {
      if (event.data().isBlank()) {
        continue;
      }
      JsonNode data =
          event.complete() ? OpenAiStream.parse(event.data()) : OpenAiStream.parseLast(event.data());
      String type = data.path("type").asText(event.event() == null ? "" : event.event());
      switch (type) {
        case "message_start" -> usage(data.path("message").path("usage"));
        case "content_block_start" -> start(data.path("index").asInt(), data.path("content_block"));
        case "content_block_delta" -> delta(data.path("index").asInt(), data.path("delta"));
        case "message_delta" -> {
          JsonNode reason = data.path("delta").get("stop_reason");
          if (reason != null && reason.isTextual()) {
            stopReason = reason.asText();
          }
          usage(data.path("usage"));
        }
        case "message_stop" -> stopped = true;
        case "error" -> throw error(data.path("error"));
        default -> {
          // ping, content_block_stop, and whatever future versions add
        }
      }
    }
    if (!stopped) {
      throw new IOException("the stream ended before message_stop");
    }
    if ("refusal".equals(stopReason)) {
      // Claude's safety classifiers stopped it: an answer that just ends would pass for a finished one
      throw new ModelException(ModelException.Kind.REFUSED,
          "the model declined to go on (stop reason \"refusal\"); rephrase the request or undo the turn");
    }
    StringBuilder text = new StringBuilder();
    List<ToolCall> calls = new ArrayList<>();
    List<ChatMessage.Reasoning> reasoning = new ArrayList<>();
    for (Block b : blocks.values()) {
      if (b.type.equals("thinking")) {
        reasoning.add(new ChatMessage.Reasoning(b.text.toString(), b.signature.toString(), null));
      } else if (b.type.equals("redacted_thinking")) {
        reasoning.add(new ChatMessage.Reasoning("", null, b.redacted));
      } else if (b.type.equals("text")) {
        text.append(b.text);
      } else if (b.type.equals("tool_use")) {
        calls.add(new ToolCall(b.id, b.name, b.text.toString()));
      }
    }
    Optional<ChatResponse.Usage> usage =
        inputTokens < 0 && outputTokens < 0
            ? Optional.empty()
            : Optional.of(new ChatResponse.Usage(Math.max(0, inputTokens), Math.max(0, outputTokens), cacheRead,
                cacheWrite));
    return new ChatResponse(
        new ChatMessage.Assistant(text.toString(), calls, reasoning),
        usage,
        stopReason != null ? stopReason : (calls.isEmpty() ? "end_turn" : "tool_use"));
  }

  private void usage(JsonNode u) {
    if (!u.isObject()) {
      return;
    }
    if (u.has("input_tokens")) {
      // message_delta may repeat message_start's counts: the last one said wins, never a sum
      cacheRead = u.path("cache_read_input_tokens").asLong(cacheRead);
      cacheWrite = u.path("cache_creation_input_tokens").asLong(cacheWrite);
      inputTokens = u.path("input_tokens").asLong(0) + cacheRead + cacheWrite;
    }
    if (u.has("output_tokens")) {
      outputTokens = u.path("output_tokens").asLong(0);
    }
  }

  private void start(int index, JsonNode block) {
    Block b = new Block();
    b.type = block.path("type").asText("");
    blocks.put(index, b);
    if (b.type.equals("text")) {
      String initial = block.path("text").asText("");
      if (!initial.isEmpty()) {
        appendText(b, initial);
      }
    } else if (b.type.equals("thinking")) {
      b.text.append(block.path("thinking").asText(""));
      b.signature.append(block.path("signature").asText(""));
    } else if (b.type.equals("redacted_thinking")) {
      b.redacted = block.path("data").asText("");
    } else if (b.type.equals("tool_use")) {
      b.id = block.path("id").asText("");
      b.name = block.path("name").asText("");
      if (b.id.isEmpty() || b.name.isEmpty()) {
        throw new ModelException(
            ModelException.Kind.PROTOCOL,
            "the Anthropic API sent a tool_use block without id or name: "
                + Excerpts.oneLine(block.toString()));
      }
      JsonNode input = block.get("input");
      if (input != null && input.isObject() && !input.isEmpty()) {
        b.text.append(input);
      }
      progress.delivered();
      listener.toolCallStarted(b.id, b.name);
    }
  }

  private void delta(int index, JsonNode delta) {
    Block b = blocks.get(index);
    if (b == null) {
      throw new ModelException(
          ModelException.Kind.PROTOCOL,
          "the Anthropic API sent a delta for block " + index + " before its start");
    }
    switch (delta.path("type").asText("")) {
      case "text_delta" -> appendText(b, delta.path("text").asText(""));
      case "input_json_delta" -> b.text.append(delta.path("partial_json").asText(""));
      case "thinking_delta" -> {
        String thought = delta.path("thinking").asText("");
        if (!thought.isEmpty()) {
          b.text.append(thought);
          progress.delivered();
          listener.reasoningDelta(thought);
        }
      }
      case "signature_delta" -> b.signature.append(delta.path("signature").asText(""));
      default -> {
        // citations and whatever later versions add: not part of the answer
      }
    }
  }

  private void appendText(Block b, String text) {
    if (text.isEmpty()) {
      return;
    }
    b.text.append(text);
    progress.delivered();
    listener.textDelta(text);
  }

  private static ModelException error(JsonNode error) {
    String type = error.path("type").asText("error");
    String message =
        "the Anthropic API reported " + type + " mid-stream: "
            + Excerpts.oneLine(error.path("message").asText(""));
    ModelException.Kind kind =
        switch (type) {
          case "rate_limit_error" -> ModelException.Kind.RATE_LIMITED;
          case "authentication_error", "permission_error" -> ModelException.Kind.AUTHENTICATION;
          case "invalid_request_error" -> ModelException.Kind.BAD_REQUEST;
          case "not_found_error" -> ModelException.Kind.NOT_FOUND;
          default -> ModelException.Kind.SERVER;
        };
    if (HttpFailures.classify(type, error.path("message").asText(""), kind) == ModelException.Kind.CONTEXT_TOO_LONG) {
      kind = ModelException.Kind.CONTEXT_TOO_LONG;
    }
    return new ModelException(kind, message);
  }
}
