package dev.waymark.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fake model provider on 127.0.0.1 for tests: it records every request and answers each with the
 * next scripted {@link Reply} (any path), streaming the reply's pieces one write and flush at a
 * time so that clients see events split across reads. Works for OpenAI-compatible and Anthropic
 * clients alike; {@link #openAiText}, {@link #anthropicText} and friends build typical streams.
 *
 * <pre>{@code
 * try (FakeModelServer server = FakeModelServer.start()) {
 *   server.enqueue(FakeModelServer.openAiText("Hel", "lo"));
 *   var model = new OpenAiChatModel(server.url("/v1"), null, "m");
 *   ...
 *   server.lastRequest().json();  // what the client sent
 * }
 * }</pre>
 */
public final class FakeModelServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A request as received. Header names are lower case. */
  public record Request(String method, String path, Map<String, String> headers, String body) {
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The header's first value, or null. */
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /**
   * One scripted answer.
   *
   * @param status HTTP status
   * @param headers response headers
   * @param pieces body pieces, each written and flushed separately
   * @param beforeHeaders wait before sending the status line (a slow or hung server)
   * @param betweenPieces wait before each piece (a slow stream)
   * @param breakAfter after the pieces, drop the connection without ending the body
   * @param drop close the connection at once, sending nothing
   */
  public record Reply(
      int status,
      Map<String, String> headers,
      List<String> pieces,
      Duration beforeHeaders,
      Duration betweenPieces,
      boolean breakAfter,
      boolean drop) {

    /** A 200 event stream made of raw {@code pieces}. */
    public static Reply sse(String... pieces) {
      return new Reply(
          200,
          Map.of("Content-Type", "text/event-stream"),
          List.of(pieces),
          Duration.ZERO,
          Duration.ZERO,
          false,
          false);
    }

    /** An error (or any) status with a JSON body. */
    public static Reply status(int status, String body) {
      return new Reply(
          status,
          Map.of("Content-Type", "application/json"),
          List.of(body),
          Duration.ZERO,
          Duration.ZERO,
          false,
          false);
    }

    /** Closes the connection before any response: a reset as the client sees it. */
    public static Reply dropConnection() {
      return new Reply(0, Map.of(), List.of(), Duration.ZERO, Duration.ZERO, false, true);
    }

    /** Sends nothing for {@code wait} (until the server closes), then the reply. */
    public Reply delayedBy(Duration wait) {
      return new Reply(status, headers, pieces, wait, betweenPieces, breakAfter, drop);
    }

    /** Waits {@code wait} before each piece. */
    public Reply slowly(Duration wait) {
      return new Reply(status, headers, pieces, beforeHeaders, wait, breakAfter, drop);
    }

    /** Drops the connection after the pieces, mid-body. */
    public Reply thenBreak() {
      return new Reply(status, headers, pieces, beforeHeaders, betweenPieces, true, drop);
    }

    public Reply withHeader(String name, String value) {
      Map<String, String> h = new LinkedHashMap<>(headers);
      h.put(name, value);
      return new Reply(status, h, pieces, beforeHeaders, betweenPieces, breakAfter, drop);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final Queue<Reply> replies = new ConcurrentLinkedQueue<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger disconnects = new AtomicInteger();
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile CountDownLatch disconnected = new CountDownLatch(1);

  private FakeModelServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "fake-model-server");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public static FakeModelServer start() {
    try {
      return new FakeModelServer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** {@link #baseUrl()} plus {@code path}, e.g. {@code url("/v1")}. */
  public URI url(String path) {
    return URI.create(baseUrl() + path);
  }

  /** Queues replies, answered in order; a request with none queued gets a 500. */
  public FakeModelServer enqueue(Reply... more) {
    Collections.addAll(replies, more);
    return this;
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  public Request lastRequest() {
    if (requests.isEmpty()) {
      throw new IllegalStateException("no request received");
    }
    return requests.get(requests.size() - 1);
  }

  /** How many times a write failed because the client had gone. */
  public int disconnects() {
    return disconnects.get();
  }

  /** Waits until a write fails because the client closed the connection. */
  public boolean awaitDisconnect(Duration timeout) throws InterruptedException {
    return disconnected.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    Map<String, String> headers = new LinkedHashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.get(0)));
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    requests.add(
        new Request(
            exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body));
    Reply reply = replies.poll();
    if (reply == null) {
      reply = Reply.status(500, "{\"error\":{\"message\":\"FakeModelServer: no reply queued\"}}");
    }
    if (reply.drop()) {
      throw new IOException("scripted connection drop"); // HttpServer closes the connection
    }
    if (!pause(reply.beforeHeaders())) {
      return;
    }
    reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
    try {
      exchange.sendResponseHeaders(reply.status(), 0); // chunked
      OutputStream out = exchange.getResponseBody();
      for (String piece : reply.pieces()) {
        if (!pause(reply.betweenPieces())) {
          return;
        }
        out.write(piece.getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
      if (reply.breakAfter()) {
        throw new IOException("scripted break mid-stream"); // no final chunk: a broken body
      }
      out.close();
    } catch (IOException e) {
      if (!e.getMessage().startsWith("scripted")) {
        disconnects.incrementAndGet();
        disconnected.countDown();
      }
      throw e;
    }
  }

  private boolean pause(Duration d) {
    try {
      return d.isZero() || !closed.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // ---- stream builders ----

  /** One SSE event with only data: {@code data: <json>\n\n}. */
  public static String data(String json) {
    return "data: " + json + "\n\n";
  }

  /** One named SSE event, as Anthropic sends them. */
  public static String event(String name, String json) {
    return "event: " + name + "\ndata: " + json + "\n\n";
  }

  private static String quote(String s) {
    try {
      return JSON.writeValueAsString(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An OpenAI Chat Completions chunk carrying a text delta. */
  public static String openAiTextChunk(String text) {
    return data(
        "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
            + quote(text) + "},\"finish_reason\":null}]}");
  }

  /** A chunk with a tool-call fragment; null parts are left out. */
  public static String openAiToolChunk(int index, String id, String name, String argumentsPart) {
    StringBuilder call = new StringBuilder("{\"index\":" + index);
    if (id != null) {
      call.append(",\"id\":").append(quote(id)).append(",\"type\":\"function\"");
    }
    call.append(",\"function\":{");
    List<String> parts = new ArrayList<>();
    if (name != null) {
      parts.add("\"name\":" + quote(name));
    }
    if (argumentsPart != null) {
      parts.add("\"arguments\":" + quote(argumentsPart));
    }
    call.append(String.join(",", parts)).append("}}");
    return data(
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[" + call + "]},\"finish_reason\":null}]}");
  }

  public static String openAiFinish(String reason) {
    return data("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":" + quote(reason) + "}]}");
  }

  public static String openAiUsage(long prompt, long completion) {
    return data(
        "{\"choices\":[],\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":"
            + completion + ",\"total_tokens\":" + (prompt + completion) + "}}");
  }

  public static final String OPENAI_DONE = "data: [DONE]\n\n";

  /** A whole OpenAI text answer: role chunk, one chunk per delta, stop, usage 10/5, [DONE]. */
  public static Reply openAiText(String... deltas) {
    List<String> pieces = new ArrayList<>();
    pieces.add(data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"));
    for (String d : deltas) {
      pieces.add(openAiTextChunk(d));
    }
    pieces.add(openAiFinish("stop"));
    pieces.add(openAiUsage(10, 5));
    pieces.add(OPENAI_DONE);
    return Reply.sse(pieces.toArray(String[]::new));
  }

  public static String anthropicMessageStart(long inputTokens) {
    return event(
        "message_start",
        "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
            + "\"content\":[],\"model\":\"claude\",\"stop_reason\":null,\"usage\":{\"input_tokens\":"
            + inputTokens + ",\"output_tokens\":1}}}");
  }

  public static String anthropicTextStart(int index) {
    return event(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":" + index
            + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
  }

  public static String anthropicTextDelta(int index, String text) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":" + index
            + ",\"delta\":{\"type\":\"text_delta\",\"text\":" + quote(text) + "}}");
  }

  public static String anthropicToolStart(int index, String id, String name) {
    return event(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":" + index
            + ",\"content_block\":{\"type\":\"tool_use\",\"id\":" + quote(id) + ",\"name\":" + quote(name)
            + ",\"input\":{}}}");
  }

  public static String anthropicJsonDelta(int index, String partialJson) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":" + index
            + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + quote(partialJson) + "}}");
  }

  public static String anthropicBlockStop(int index) {
    return event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
  }

  public static String anthropicMessageDelta(String stopReason, long outputTokens) {
    return event(
        "message_delta",
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":" + quote(stopReason)
            + ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + outputTokens + "}}");
  }

  public static final String ANTHROPIC_STOP = event("message_stop", "{\"type\":\"message_stop\"}");

  /** A whole Anthropic text answer: one text block, end_turn, usage 12/7. */
  public static Reply anthropicText(String... deltas) {
    List<String> pieces = new ArrayList<>();
    pieces.add(anthropicMessageStart(12));
    pieces.add(anthropicTextStart(0));
    pieces.add(event("ping", "{\"type\":\"ping\"}"));
    for (String d : deltas) {
      pieces.add(anthropicTextDelta(0, d));
    }
    pieces.add(anthropicBlockStop(0));
    pieces.add(anthropicMessageDelta("end_turn", 7));
    pieces.add(ANTHROPIC_STOP);
    return Reply.sse(pieces.toArray(String[]::new));
  }

  // ---- streams as particular servers send them, byte for byte ----

  /**
   * Ollama's OpenAI-compatible stream when the model calls several tools at once (current Ollama,
   * e.g. qwen2.5-coder): each call arrives whole in its own chunk, every one with {@code index: 0}
   * and its own {@code call_xxxxxxxx} id, then a finish chunk, the usage chunk and {@code [DONE]}.
   * {@code calls} alternates name and arguments JSON.
   */
  public static Reply ollamaParallelToolCalls(String... calls) {
    List<String> pieces = new ArrayList<>();
    String head = "{\"id\":\"chatcmpl-453\",\"object\":\"chat.completion.chunk\",\"created\":1763900000,"
        + "\"model\":\"qwen2.5-coder\",\"system_fingerprint\":\"fp_ollama\",";
    for (int i = 0; i + 1 < calls.length; i += 2) {
      pieces.add(data(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\","
          + "\"tool_calls\":[{\"id\":\"call_" + "u5gdnvt" + (char) ('a' + i / 2) + "\",\"index\":0,\"type\":\"function\","
          + "\"function\":{\"name\":" + quote(calls[i]) + ",\"arguments\":" + quote(calls[i + 1]) + "}}]},"
          + "\"finish_reason\":null}]}"));
    }
    pieces.add(data(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
        + "\"finish_reason\":\"tool_calls\"}]}"));
    pieces.add(data(head + "\"choices\":[],\"usage\":{\"prompt_tokens\":412,\"completion_tokens\":61,"
        + "\"total_tokens\":473}}"));
    pieces.add(OPENAI_DONE);
    return Reply.sse(pieces.toArray(String[]::new));
  }

  /**
   * llama.cpp's server (2025 builds) failing after the headers: HTTP 200, a non-standard SSE
   * {@code error:} field, then {@code data: [DONE]}.
   */
  public static Reply llamaCppStreamError(String message, String type, int code) {
    return Reply.sse(
        "error: {\"code\":" + code + ",\"message\":" + quote(message) + ",\"type\":" + quote(type) + "}\n\n",
        OPENAI_DONE);
  }

  /**
   * A server that ends each body by closing the connection, with neither chunked encoding nor a
   * Content-Length (HTTP/1.1 allows it; some proxies and small servers do it): the client cannot
   * tell a cut body from a finished one by the framing. Each connection gets the next queued body.
   */
  public static final class CloseDelimited implements AutoCloseable {
    private final ServerSocket socket;
    private final Queue<List<String>> bodies = new ConcurrentLinkedQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final Thread acceptor;

    public CloseDelimited() {
      try {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      acceptor = new Thread(this::serve, "fake-close-delimited");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    /** Queues one 200 event-stream body, sent piece by piece and ended by closing the connection. */
    public CloseDelimited enqueue(String... pieces) {
      bodies.add(List.of(pieces));
      return this;
    }

    public int requests() {
      return requests.get();
    }

    public URI url(String path) {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
    }

    private void serve() {
      while (!socket.isClosed()) {
        try (Socket client = socket.accept()) {
          readRequest(client.getInputStream());
          requests.incrementAndGet();
          List<String> body = bodies.poll();
          OutputStream out = client.getOutputStream();
          out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          for (String piece : body == null ? List.<String>of() : body) {
            out.write(piece.getBytes(StandardCharsets.UTF_8));
            out.flush();
          }
        } catch (IOException e) {
          // closed, or the client went away
        }
      }
    }

    private static void readRequest(InputStream in) throws IOException {
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        head.append((char) b);
      }
      Matcher m = Pattern.compile("(?i)content-length:\\s*(\\d+)").matcher(head);
      if (m.find()) {
        in.readNBytes(Integer.parseInt(m.group(1)));
      }
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
