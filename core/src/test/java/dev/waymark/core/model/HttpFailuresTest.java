package dev.waymark.core.model;

import static dev.waymark.core.testing.FakeModelServer.openAiText;
import static dev.waymark.core.testing.FakeModelServer.openAiTextChunk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import dev.waymark.core.testing.Running;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Retries, error statuses, broken streams and cancellation of the HTTP clients. */
@Timeout(20)
class HttpFailuresTest {
  /**
   * How long a cancelled call may take before the test calls it hung: longer than any machine
   * needs, shorter than the reply the cancel must cut short. Speed is for the benchmarks.
   */
  private static final Duration HANG = Duration.ofSeconds(10);

  private final FakeModelServer server = FakeModelServer.start();
  private final RecordingListener listener = new RecordingListener();
  /** The retry delays the client asked for; it really waits 1 ms each. */
  private final List<Duration> delays = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void stop() {
    server.close();
  }

  private OpenAiChatModel openAi(String key, HttpOptions options) {
    return new OpenAiChatModel(
        server.url("/v1"), key, "gpt-test", options, d -> {
          delays.add(d);
          return Duration.ofMillis(1);
        });
  }

  private OpenAiChatModel openAi() {
    return openAi("sk-secret-123", OpenAiChatModelTest.FAST);
  }

  private static ChatRequest hello() {
    return new ChatRequest(null, List.of(new ChatMessage.User("hi")), List.of());
  }

  private ChatResponse ask(ChatModel model) {
    return model.stream(hello(), listener, new Cancellation());
  }

  private static Consumer<Throwable> kind(ModelException.Kind kind, String... messageParts) {
    return t -> {
      assertThat(t).isInstanceOf(ModelException.class);
      assertThat(((ModelException) t).kind()).isEqualTo(kind);
      assertThat(t.getMessage()).contains(messageParts).doesNotContain("sk-secret-123");
    };
  }

  // ---- bounds ----

  @Test
  void anAnswerPastTheSizeLimitEndsWithAClearErrorInsteadOfGrowingWithoutEnd() {
    List<String> pieces = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      pieces.add(openAiTextChunk("y".repeat(100)));
    }
    server.enqueue(Reply.sse(pieces.toArray(String[]::new)));
    OpenAiChatModel model = openAi("sk-secret-123", OpenAiChatModelTest.FAST.withMaxAnswerBytes(64 * 1024));

    assertThatThrownBy(() -> ask(model)).satisfies(kind(ModelException.Kind.PROTOCOL, "64 KiB", "maxAnswerMiB"));
    assertThat(server.requests()).as("not retried").hasSize(1);
  }

  @Test
  void oneEndlessLineIsStoppedAtTheLimitToo() {
    server.enqueue(Reply.sse("data: " + "z".repeat(300_000)));
    OpenAiChatModel model = openAi("sk-secret-123", OpenAiChatModelTest.FAST.withMaxAnswerBytes(64 * 1024));

    assertThatThrownBy(() -> ask(model)).satisfies(kind(ModelException.Kind.PROTOCOL, "64 KiB"));
  }

  @Test
  void theDefaultLimitIs32MiB() {
    assertThat(HttpOptions.defaults().maxAnswerBytes()).isEqualTo(32L << 20);
  }

  @Test
  void aWebPageAnsweredWith200SaysItIsNotAnOpenAiCompatibleEndpoint() {
    server.enqueue(Reply.status(200, "<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body>Hi</body></html>")
        .withHeader("Content-Type", "text/html; charset=utf-8"));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.PROTOCOL, "not an OpenAI-compatible endpoint", "OPENAI_BASE_URL"))
        .satisfies(t -> assertThat(t.getMessage()).doesNotContain("broke"));
  }

  @Test
  void aWebPageWithoutAContentTypeIsRecognisedToo() {
    server.enqueue(Reply.status(200, "  <html><body>login</body></html>").withHeader("Content-Type", "text/plain"));

    assertThatThrownBy(() -> ask(openAi())).satisfies(kind(ModelException.Kind.PROTOCOL, "not an OpenAI-compatible endpoint"));
  }

  // ---- retries ----

  @Test
  void a429IsRetriedAfterTheRetryAfterSeconds() {
    server.enqueue(
        Reply.status(429, "{\"error\":{\"message\":\"slow down\"}}").withHeader("Retry-After", "2"),
        openAiText("ok"));

    ChatResponse response = ask(openAi());

    assertThat(response.message().text()).isEqualTo("ok");
    assertThat(server.requests()).hasSize(2);
    assertThat(delays).containsExactly(Duration.ofSeconds(2));
    assertThat(listener.waits).containsExactly("rate limited, retrying in 2 s (1/3)");
  }

  @Test
  void retryAfterIsCappedByMaxRetryDelay() {
    server.enqueue(Reply.status(429, "{}").withHeader("Retry-After", "3600"), openAiText("ok"));

    ask(openAi("k", OpenAiChatModelTest.FAST.withMaxRetryDelay(Duration.ofSeconds(30))));

    assertThat(delays).containsExactly(Duration.ofSeconds(30));
  }

  @Test
  void serverErrorsBackOffExponentiallyThenFailNamingTheStatus() {
    for (int i = 0; i < 4; i++) {
      server.enqueue(Reply.status(500, "{\"error\":{\"message\":\"boom\"}}"));
    }

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.SERVER, "HTTP 500", "boom", "3 retries"));
    assertThat(server.requests()).hasSize(4);
    assertThat(delays)
        .containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(listener.texts).isEmpty();
    assertThat(listener.waits).containsExactly(
        "server error (HTTP 500), retrying in 1 s (1/3)",
        "server error (HTTP 500), retrying in 1 s (2/3)",
        "server error (HTTP 500), retrying in 2 s (3/3)");
  }

  @Test
  void aPersistent429IsRateLimited() {
    for (int i = 0; i < 4; i++) {
      server.enqueue(Reply.status(429, "{\"error\":{\"message\":\"quota\"}}"));
    }

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.RATE_LIMITED, "429", "quota"));
  }

  @Test
  void a503ThenSuccessSucceeds() {
    server.enqueue(Reply.status(503, "overloaded"), openAiText("fine"));

    assertThat(ask(openAi()).message().text()).isEqualTo("fine");
    assertThat(listener.texts).containsExactly("fine");
  }

  @Test
  void aConnectionResetBeforeAnyTokenIsRetried() {
    server.enqueue(Reply.dropConnection(), openAiText("ok"));

    assertThat(ask(openAi()).message().text()).isEqualTo("ok");
    assertThat(server.requests()).hasSize(2);
    assertThat(listener.waits).singleElement().asString().startsWith("connection failed, retrying in 1 s (1/3)");
  }

  @Test
  void aStreamBrokenBeforeAnyTokenIsRetried() {
    server.enqueue(
        Reply.sse(FakeModelServer.data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}"))
            .thenBreak(),
        openAiText("ok"));

    assertThat(ask(openAi()).message().text()).isEqualTo("ok");
    assertThat(listener.texts).containsExactly("ok");
  }

  @Test
  void aBodyCutWithoutChunkedEncodingBeforeAnyTokenIsABrokenConnectionAndIsRetried() {
    try (FakeModelServer.CloseDelimited cut = new FakeModelServer.CloseDelimited()) {
      cut.enqueue("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assis");
      cut.enqueue(openAiText("ok").pieces().toArray(String[]::new));
      OpenAiChatModel model = new OpenAiChatModel(cut.url("/v1"), null, "m", OpenAiChatModelTest.FAST, d -> {
        delays.add(d);
        return Duration.ofMillis(1);
      });

      assertThat(ask(model).message().text()).isEqualTo("ok");
      assertThat(cut.requests()).isEqualTo(2);
    }
  }

  @Test
  void aBodyCutWithoutChunkedEncodingAfterTokensIsABrokenConnectionNotAMalformedEvent() {
    try (FakeModelServer.CloseDelimited cut = new FakeModelServer.CloseDelimited()) {
      cut.enqueue(openAiTextChunk("Hel"), "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo");
      OpenAiChatModel model = new OpenAiChatModel(cut.url("/v1"), null, "m", OpenAiChatModelTest.FAST);

      assertThatThrownBy(() -> ask(model))
          .satisfies(kind(ModelException.Kind.NETWORK, "broke after the answer had started"));
      assertThat(cut.requests()).isEqualTo(1);
    }
  }

  @Test
  void anAnthropicBodyCutWithoutChunkedEncodingIsABrokenConnection() {
    try (FakeModelServer.CloseDelimited cut = new FakeModelServer.CloseDelimited()) {
      cut.enqueue(FakeModelServer.anthropicMessageStart(5), FakeModelServer.anthropicTextStart(0),
          FakeModelServer.anthropicTextDelta(0, "Hi"), "event: content_block_delta\ndata: {\"type\":\"content_blo");
      AnthropicChatModel model = new AnthropicChatModel(cut.url(""), "k", "claude", 1024, OpenAiChatModelTest.FAST);

      assertThatThrownBy(() -> ask(model))
          .satisfies(kind(ModelException.Kind.NETWORK, "broke after the answer had started"));
    }
  }

  @Test
  void aStreamBrokenAfterTokensFailsWithoutRetryOrPartialSuccess() {
    server.enqueue(Reply.sse(openAiTextChunk("Hel"), openAiTextChunk("lo")).thenBreak(), openAiText("x"));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.NETWORK, "after the answer had started"));
    assertThat(listener.texts).containsExactly("Hel", "lo");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aStreamEndingCleanlyButIncompleteIsNotASuccess() {
    // no finish_reason, no [DONE]: with tokens already shown this is a NETWORK failure
    server.enqueue(Reply.sse(openAiTextChunk("Hel")));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.NETWORK, "ended before the answer was complete"));
  }

  @Test
  void anUnreachableServerIsANetworkErrorNamingTheSetting() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    OpenAiChatModel model =
        new OpenAiChatModel(
            URI.create("http://127.0.0.1:" + port + "/v1"), null, "m", OpenAiChatModelTest.FAST,
            d -> {
              delays.add(d);
              return Duration.ofMillis(1);
            });

    assertThatThrownBy(() -> ask(model))
        .satisfies(kind(ModelException.Kind.NETWORK, "--base-url", "OPENAI_BASE_URL", "127.0.0.1:" + port,
            "connection refused"))
        .satisfies(t -> assertThat(t.getMessage()).doesNotContain("Exception"));
    assertThat(delays).hasSize(3);
  }

  @Test
  void aSilentStreamTimesOut() {
    server.enqueue(
        Reply.sse(openAiTextChunk("a"), openAiText("b").pieces().get(1)).slowly(Duration.ofMillis(400)));

    assertThatThrownBy(
            () -> ask(openAi(null, OpenAiChatModelTest.FAST.withIdleTimeout(Duration.ofMillis(150)))))
        .satisfies(kind(ModelException.Kind.NETWORK, "stopped sending"));
  }

  // ---- errors inside a 200 stream ----

  @Test
  void llamaCppsErrorFieldEndsTheTurnWithTheServersMessage() {
    server.enqueue(
        FakeModelServer.llamaCppStreamError(
            "the request exceeds the available context size. try increasing the context size or enable context shift",
            "invalid_request_error", 400));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.CONTEXT_TOO_LONG, "exceeds the available context size"));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void llamaCppsErrorFieldForAServerFailureIsAServerError() {
    server.enqueue(
        FakeModelServer.llamaCppStreamError("failed to decode the batch", "server_error", 500),
        FakeModelServer.llamaCppStreamError("failed to decode the batch", "server_error", 500),
        FakeModelServer.llamaCppStreamError("failed to decode the batch", "server_error", 500),
        FakeModelServer.llamaCppStreamError("failed to decode the batch", "server_error", 500));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.SERVER, "failed to decode the batch"));
  }

  @Test
  void anInStreamInvalidApiKeyIsAKeyErrorNamingTheVariableAndIsNotRetried() {
    server.enqueue(
        Reply.sse(
            FakeModelServer.data(
                "{\"error\":{\"message\":\"Incorrect API key provided: sk-secret-123. You can find your API key at "
                    + "https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"param\":null,"
                    + "\"code\":\"invalid_api_key\"}}"),
            FakeModelServer.OPENAI_DONE));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.AUTHENTICATION, "OPENAI_API_KEY", "Incorrect API key provided"));
    assertThat(server.requests()).hasSize(1);
  }

  private static final String QUOTA =
      "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
          + "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}";

  @Test
  void anInStreamQuotaErrorIsNotRetried() {
    server.enqueue(Reply.sse(FakeModelServer.data(QUOTA), FakeModelServer.OPENAI_DONE), openAiText("never"));

    assertThatThrownBy(() -> ask(openAi())).satisfies(kind(ModelException.Kind.QUOTA, "exceeded your current quota"));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void a429ForAnExhaustedQuotaIsNotRetried() {
    server.enqueue(Reply.status(429, QUOTA), openAiText("never"));

    assertThatThrownBy(() -> ask(openAi())).satisfies(kind(ModelException.Kind.QUOTA, "exceeded your current quota"));
    assertThat(server.requests()).hasSize(1);
    assertThat(delays).isEmpty();
  }

  @Test
  void aRefusalEndsTheTurnWithTheModelsWords() {
    server.enqueue(
        Reply.sse(
            FakeModelServer.data("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"\"},\"finish_reason\":null}]}"),
            FakeModelServer.data("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"refusal\":\"I'm sorry, I can't help with that.\"},\"finish_reason\":null}]}"),
            FakeModelServer.openAiFinish("stop"),
            FakeModelServer.OPENAI_DONE));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.REFUSED, "I'm sorry, I can't help with that."));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void anOpenAiContextOverflowSaysSo() {
    server.enqueue(
        Reply.status(400, "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your "
            + "messages resulted in 130012 tokens. Please reduce the length of the messages.\",\"type\":\"invalid_request_error\","
            + "\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}"));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.CONTEXT_TOO_LONG, "maximum context length is 128000 tokens"));
  }

  @Test
  void anAnthropicContextOverflowSaysSo() {
    server.enqueue(
        Reply.status(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
            + "\"prompt is too long: 208310 tokens > 200000 maximum\"}}"));
    AnthropicChatModel model = new AnthropicChatModel(server.baseUrl(), "k", "claude", 1024, OpenAiChatModelTest.FAST);

    assertThatThrownBy(() -> ask(model)).satisfies(kind(ModelException.Kind.CONTEXT_TOO_LONG, "prompt is too long"));
  }

  // ---- statuses that are not retried ----

  @Test
  void unauthorizedNamesTheKeySettingAndNeverEchoesTheKey() {
    server.enqueue(
        Reply.status(401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-secret-123\"}}"));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.AUTHENTICATION, "OPENAI_API_KEY", "Incorrect API key", "***"));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void forbiddenWithoutAKeyAsksToSetOne() {
    server.enqueue(Reply.status(403, "{}"));

    assertThatThrownBy(() -> ask(openAi(null, OpenAiChatModelTest.FAST)))
        .satisfies(kind(ModelException.Kind.AUTHENTICATION, "set OPENAI_API_KEY"));
  }

  @Test
  void notFoundNamesTheBaseUrlAndTheModel() {
    server.enqueue(Reply.status(404, "{\"error\":\"model 'gpt-test' not found\"}"));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(
            kind(
                ModelException.Kind.NOT_FOUND,
                "--base-url",
                "OPENAI_BASE_URL",
                server.url("/v1").toString(),
                "'gpt-test'",
                "--model",
                "not found"));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aBadRequestQuotesTheServersReason() {
    server.enqueue(Reply.status(400, "{\"error\":{\"message\":\"Invalid value for messages[2].role\"}}"));

    assertThatThrownBy(() -> ask(openAi()))
        .satisfies(kind(ModelException.Kind.BAD_REQUEST, "HTTP 400", "Invalid value for messages[2].role"));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void anthropicAuthenticationFailureNamesItsKeySetting() {
    server.enqueue(
        Reply.status(
            401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}"));
    AnthropicChatModel model =
        new AnthropicChatModel(server.baseUrl(), "sk-secret-123", "claude", 1024, OpenAiChatModelTest.FAST);

    assertThatThrownBy(() -> ask(model))
        .satisfies(kind(ModelException.Kind.AUTHENTICATION, "ANTHROPIC_API_KEY", "invalid x-api-key"));
  }

  @Test
  void anthropicNotFoundNamesItsBaseUrlSetting() {
    server.enqueue(Reply.status(404, "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: x\"}}"));
    AnthropicChatModel model = new AnthropicChatModel(server.baseUrl(), "k", "x", 1024, OpenAiChatModelTest.FAST);

    assertThatThrownBy(() -> ask(model))
        .satisfies(kind(ModelException.Kind.NOT_FOUND, "--base-url", "ANTHROPIC_BASE_URL", "'x'", "--model"));
  }

  // ---- the settings a message names are the ones in use ----

  private static final Endpoint PROXY = new Endpoint(URI.create("http://unused"), null, "MY_PROXY_KEY",
      "--base-url or the baseUrl of provider \"proxy\" in settings.json");

  private OpenAiChatModel proxy(String key) {
    return new OpenAiChatModel(new Endpoint(server.url("/v1"), key, PROXY.keyName(), PROXY.baseUrlName()), "m", 0,
        OpenAiChatModelTest.FAST, d -> Duration.ofMillis(1));
  }

  @Test
  void aCustomKeyVariableIsTheOneNamedWhenTheKeyIsMissingRefusedOrRefusedMidStream() {
    server.enqueue(
        Reply.status(401, "{\"error\":{\"message\":\"Missing bearer authentication in header\"}}"),
        Reply.status(401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-secret-123\"}}"),
        Reply.sse(FakeModelServer.data("{\"error\":{\"message\":\"Incorrect API key\",\"code\":\"invalid_api_key\"}}"),
            FakeModelServer.OPENAI_DONE));

    for (String key : new String[] {null, "sk-secret-123", "sk-secret-123"}) {
      assertThatThrownBy(() -> ask(proxy(key)))
          .satisfies(kind(ModelException.Kind.AUTHENTICATION, "MY_PROXY_KEY"))
          .message().doesNotContain("OPENAI_API_KEY");
    }
  }

  @Test
  void aCustomProvidersBaseUrlSettingIsTheOneNamedWhenTheServerCannotBeFound() {
    server.enqueue(Reply.status(404, "{\"error\":\"not found\"}"));

    assertThatThrownBy(() -> ask(proxy(null)))
        .satisfies(kind(ModelException.Kind.NOT_FOUND, "baseUrl of provider \"proxy\""))
        .message().doesNotContain("OPENAI_BASE_URL");
  }

  @Test
  void anAnthropicCompatibleServerNamesItsOwnKeyVariable() {
    server.enqueue(Reply.status(401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
        + "\"message\":\"invalid x-api-key\"}}"));
    AnthropicChatModel model = new AnthropicChatModel(
        new Endpoint(server.baseUrl(), "sk-secret-123", "KIMI_KEY", "--base-url or the baseUrl of provider \"kimi\""),
        "kimi", 1024, 0, OpenAiChatModelTest.FAST);

    assertThatThrownBy(() -> ask(model))
        .satisfies(kind(ModelException.Kind.AUTHENTICATION, "KIMI_KEY"))
        .message().doesNotContain("ANTHROPIC_API_KEY");
  }

  // ---- cancellation ----

  private static ModelException cancelledWithin(Future<ChatResponse> call, Duration limit)
      throws Exception {
    try {
      call.get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ModelException.class);
      ModelException me = (ModelException) e.getCause();
      assertThat(me.kind()).isEqualTo(ModelException.Kind.CANCELLED);
      return me;
    }
    throw new AssertionError("the call returned instead of being cancelled");
  }

  @Test
  void cancellingBeforeTheCallSendsNothing() {
    Cancellation cancellation = new Cancellation();
    cancellation.cancel();

    assertThatThrownBy(() -> openAi().stream(hello(), listener, cancellation))
        .satisfies(kind(ModelException.Kind.CANCELLED, "cancelled"));
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void cancellingBeforeTheHeadersReturnsAtOnce() throws Exception {
    server.enqueue(openAiText("late").delayedBy(Duration.ofMinutes(10)));
    Cancellation cancellation = new Cancellation();
    OpenAiChatModel model = openAi();
    CompletableFuture<ChatResponse> call =
        CompletableFuture.supplyAsync(() -> model.stream(hello(), listener, cancellation));
    awaitRequests(1); // sent: what is left is the wait for the headers

    cancellation.cancel();

    cancelledWithin(call, HANG);
  }

  @Test
  void cancellingAfterHeadersButBeforeTheFirstTokenReturnsAtOnce() throws Exception {
    server.enqueue(Reply.sse(": waiting\n\n", openAiTextChunk("late")).slowly(Duration.ofMillis(300)));
    Cancellation cancellation = new Cancellation();
    OpenAiChatModel model = openAi();
    Running<ChatResponse> running = Running.start("call", () -> model.stream(hello(), listener, cancellation));
    awaitRequests(1);
    running.awaitIn("SseReader."); // the headers came: the body is being read

    cancellation.cancel();

    cancelledWithin(running.future(), HANG);
    assertThat(listener.texts).isEmpty();
  }

  @Test
  void cancellingAfterTheFirstTokenClosesTheConnection() throws Exception {
    List<String> pieces = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      pieces.add(openAiTextChunk("tok" + i + " "));
    }
    server.enqueue(Reply.sse(pieces.toArray(String[]::new)).slowly(Duration.ofMillis(50)));
    Cancellation cancellation = new Cancellation();
    OpenAiChatModel model = openAi();
    CompletableFuture<ChatResponse> call =
        CompletableFuture.supplyAsync(() -> model.stream(hello(), listener, cancellation));
    assertThat(listener.firstEvent.await(5, TimeUnit.SECONDS)).isTrue();

    cancellation.cancel();

    cancelledWithin(call, HANG);
    assertThat(server.awaitDisconnect(Duration.ofSeconds(3))).as("server saw the client go").isTrue();
    assertThat(listener.texts.size()).isLessThan(20);
  }

  @Test
  void cancellingDuringARetryPauseStopsRetrying() throws Exception {
    server.enqueue(Reply.status(503, "{}").withHeader("Retry-After", "30"), openAiText("never"));
    Cancellation cancellation = new Cancellation();
    OpenAiChatModel model =
        new OpenAiChatModel(server.url("/v1"), null, "m", OpenAiChatModelTest.FAST); // real delays
    Running<ChatResponse> running = Running.start("call", () -> model.stream(hello(), listener, cancellation));
    awaitRequests(1);
    running.awaitIn("HttpTransport$Exchange.sleep"); // the retry's pause

    cancellation.cancel();

    cancelledWithin(running.future(), HANG);
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void anthropicCancelAfterTheFirstTokenReturnsAtOnce() throws Exception {
    List<String> pieces = new ArrayList<>();
    pieces.add(FakeModelServer.anthropicMessageStart(5));
    pieces.add(FakeModelServer.anthropicTextStart(0));
    for (int i = 0; i < 100; i++) {
      pieces.add(FakeModelServer.anthropicTextDelta(0, "t" + i));
    }
    server.enqueue(Reply.sse(pieces.toArray(String[]::new)).slowly(Duration.ofMillis(50)));
    Cancellation cancellation = new Cancellation();
    AnthropicChatModel model =
        new AnthropicChatModel(server.baseUrl(), "k", "claude", 1024, OpenAiChatModelTest.FAST);
    CompletableFuture<ChatResponse> call =
        CompletableFuture.supplyAsync(() -> model.stream(hello(), listener, cancellation));
    assertThat(listener.firstEvent.await(5, TimeUnit.SECONDS)).isTrue();

    cancellation.cancel();

    cancelledWithin(call, HANG);
    assertThat(server.awaitDisconnect(Duration.ofSeconds(3))).isTrue();
  }

  private void awaitRequests(int n) {
    Eventually.until(n + " request(s) at the server", () -> server.requests().size() >= n);
    assertThat(server.requests()).hasSizeGreaterThanOrEqualTo(n);
  }
}
