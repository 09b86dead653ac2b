package dev.waymark.core.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A model that replays a script: each call consumes the next scripted response, streaming its text
 * in small chunks. For end-to-end tests and demos of the agent without a provider.
 *
 * <h2>Script format (JSON)</h2>
 *
 * <pre>{@code
 * {"responses": [
 *   {"text": "I'll create the file.",
 *    "toolCalls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi"}}]},
 *   {"expectLastUser": "thanks", "text": "Done.", "delayMs": 200},
 *   {"error": {"kind": "RATE_LIMITED", "message": "slow down"}}
 * ]}
 * }</pre>
 *
 * Fields of a response, all optional:
 *
 * <ul>
 *   <li>{@code text}: the answer's text, streamed in chunks of {@value #CHUNK} characters.
 *   <li>{@code toolCalls}: {@code name} (required), {@code arguments} (a JSON object, or a string
 *       of raw JSON), {@code id} (default {@code call_<response>_<call>}, both from 1).
 *   <li>{@code delayMs}: wait before answering; {@code chunkDelayMs}: wait before each chunk. Both
 *       end early on cancellation, which throws {@code CANCELLED}.
 *   <li>{@code expectLastUser}: the text the last user message must contain, else the call fails
 *       with {@code PROTOCOL} (a check that the agent sent what the script expects).
 *   <li>{@code stopReason}: default {@code tool_use} with tool calls, else {@code end_turn}.
 *   <li>{@code usage}: {@code {"inputTokens": n, "outputTokens": m}}, optionally with {@code cacheReadTokens}
 *       and {@code cacheWriteTokens}, the part of the input read from and written to a prompt cache.
 *   <li>{@code error}: {@code {"kind": <ModelException.Kind>, "message": "..."}}: the call fails so.
 * </ul>
 *
 * Unknown fields are errors, so a typo is not silently ignored. A call past the last response fails
 * with {@code PROTOCOL}. Thread-safe; calls consume responses in the order they arrive.
 */
public final class ScriptedChatModel implements ChatModel {
  static final int CHUNK = 8;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** A whole script. */
  public record Script(List<Response> responses) {
    public Script {
      Objects.requireNonNull(responses, "a script needs \"responses\"");
      responses = List.copyOf(responses);
    }
  }

  /** One scripted answer; see the class comment for each field. */
  public record Response(
      String text,
      List<Call> toolCalls,
      long delayMs,
      long chunkDelayMs,
      String expectLastUser,
      String whenLastUser,
      String stopReason,
      ChatResponse.Usage usage,
      Failure error) {
    public Response {
      text = text == null ? "" : text;
      toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
      if (delayMs < 0 || chunkDelayMs < 0) {
        throw new IllegalArgumentException("delays must not be negative");
      }
    }

    /** A plain text answer. */
    public static Response text(String text) {
      return new Response(text, List.of(), 0, 0, null, null, null, null, null);
    }

    /** An answer that calls tools. */
    public static Response toolCalls(String text, List<Call> calls) {
      return new Response(text, calls, 0, 0, null, null, null, null, null);
    }
  }

  /** One scripted tool call; {@code id} may be null, {@code arguments} an object or a JSON string. */
  public record Call(String id, String name, JsonNode arguments) {
    public Call {
      Objects.requireNonNull(name, "a tool call needs a \"name\"");
    }
  }

  /** A scripted failure. */
  public record Failure(ModelException.Kind kind, String message) {
    public Failure {
      Objects.requireNonNull(kind, "an error needs a \"kind\"");
      message = message == null ? "scripted " + kind : message;
    }
  }

  private final Script script;
  private final String source;
  private int next;
  private boolean[] used;

  public ScriptedChatModel(Script script) {
    this(script, "the script");
  }

  /**
   * Reads a script file.
   *
   * @throws ModelException {@code NOT_FOUND} for a missing file; {@code PROTOCOL} naming the path,
   *     line and column for a file that is not a valid script
   */
  public ScriptedChatModel(Path path) {
    this(load(path), "the script " + path);
  }

  private ScriptedChatModel(Script script, String source) {
    this.script = Objects.requireNonNull(script);
    this.source = source;
    this.used = new boolean[script.responses().size()];
  }

  /** Parses a script from JSON text; errors name {@code origin}, line and column. */
  public static Script parse(String json, String origin) {
    try {
      Script s = JSON.readValue(json, Script.class);
      if (s == null) {
        throw new ModelException(ModelException.Kind.PROTOCOL, origin + " is empty");
      }
      return s;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : ": line " + at.getLineNr() + ", column " + at.getColumnNr();
      String why = e.getOriginalMessage();
      Throwable cause = e.getCause();
      if (cause != null && cause.getMessage() != null && !(cause instanceof JsonProcessingException)) {
        why = cause.getMessage();
      } else if (e instanceof UnrecognizedPropertyException u) {
        why =
            "unknown field \"" + u.getPropertyName() + "\" (known: "
                + String.join(", ", u.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList())
                + ")";
      }
      throw new ModelException(
          ModelException.Kind.PROTOCOL, origin + where + ": " + why.lines().findFirst().orElse(why), e);
    }
  }

  private static Script load(Path path) {
    String json;
    try {
      json = Files.readString(path);
    } catch (NoSuchFileException e) {
      throw new ModelException(ModelException.Kind.NOT_FOUND, "script file not found: " + path, e);
    } catch (IOException e) {
      throw new ModelException(
          ModelException.Kind.PROTOCOL, "cannot read the script " + path + ": " + e.getMessage(), e);
    }
    return parse(json, path.toString());
  }

  /** How many responses have been consumed. */
  public synchronized int consumed() {
    return next;
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
    int number;
    Response response;
    synchronized (this) {
      String last = lastUser(request);
      int found = -1;
      for (int i = 0; i < used.length && found < 0; i++) {
        String when = script.responses().get(i).whenLastUser();
        if (!used[i] && (when == null || (last != null && last.contains(when)))) {
          found = i;
        }
      }
      if (found < 0) {
        throw new ModelException(
            ModelException.Kind.PROTOCOL,
            source + " has no response #" + (next + 1) + ": it has only "
                + script.responses().size() + " and the agent asked for another"
                + (next < used.length ? " (none left whose whenLastUser fits \"" + Excerpts.oneLine(String.valueOf(last)) + "\")" : ""));
      }
      used[found] = true;
      next++;
      number = found + 1;
      response = script.responses().get(found);
    }
    CountDownLatch cancelled = new CountDownLatch(1);
    cancellation.onCancel(cancelled::countDown);
    checkExpectation(number, response, request);
    pause(response.delayMs(), cancelled);
    if (response.error() != null) {
      throw new ModelException(response.error().kind(), response.error().message());
    }
    String text = response.text();
    for (int i = 0; i < text.length(); ) {
      pause(response.chunkDelayMs(), cancelled);
      int end = text.offsetByCodePoints(i, Math.min(CHUNK, text.codePointCount(i, text.length())));
      listener.textDelta(text.substring(i, end));
      i = end;
    }
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < response.toolCalls().size(); i++) {
      Call c = response.toolCalls().get(i);
      String id = c.id() != null ? c.id() : "call_" + number + "_" + (i + 1);
      JsonNode args = c.arguments();
      String argumentsJson = args == null || args.isNull() ? "{}" : args.isTextual() ? args.asText() : args.toString();
      listener.toolCallStarted(id, c.name());
      calls.add(new ToolCall(id, c.name(), argumentsJson));
    }
    pause(0, cancelled);
    String stop =
        response.stopReason() != null ? response.stopReason() : calls.isEmpty() ? "end_turn" : "tool_use";
    return new ChatResponse(
        new ChatMessage.Assistant(text, calls), Optional.ofNullable(response.usage()), stop);
  }

  private static String lastUser(ChatRequest request) {
    String last = null;
    for (ChatMessage m : request.messages()) {
      if (m instanceof ChatMessage.User u) {
        last = u.text();
      }
    }
    return last;
  }

  private void checkExpectation(int number, Response response, ChatRequest request) {
    if (response.expectLastUser() == null) {
      return;
    }
    String last = lastUser(request);
    if (last == null || !last.contains(response.expectLastUser())) {
      throw new ModelException(
          ModelException.Kind.PROTOCOL,
          source + ", response #" + number + ": expected the last user message to contain \""
              + response.expectLastUser() + "\" but it was "
              + (last == null ? "absent" : "\"" + Excerpts.oneLine(last) + "\""));
    }
  }

  private static void pause(long millis, CountDownLatch cancelled) {
    try {
      if (cancelled.await(millis, TimeUnit.MILLISECONDS) || cancelled.getCount() == 0) {
        throw new ModelException(ModelException.Kind.CANCELLED, "cancelled");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ModelException(ModelException.Kind.CANCELLED, "interrupted");
    }
  }
}
