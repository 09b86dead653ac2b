package dev.waymark.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hurried user's mistakes on the provider side: a base URL with or without {@code /v1} where it
 * does not belong, a URL that is no model API at all (a web page, a redirect, a status page), a
 * proxy that answers for the server. Each gets one message saying what is wrong and which setting
 * to change; none passes as an empty answer.
 */
@Timeout(20)
class WrongServerTest {
  private final FakeModelServer server = FakeModelServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private static ChatRequest hello() {
    return new ChatRequest(null, List.of(new ChatMessage.User("hi")), List.of());
  }

  private ChatResponse askOpenAi(String path) {
    return new OpenAiChatModel(server.url(path), "sk-wrong-server", "m", 0, OpenAiChatModelTest.FAST, d -> Duration.ofMillis(1))
        .stream(hello(), StreamListener.IGNORE, new Cancellation());
  }

  private static Reply typed(int status, String contentType, String body) {
    return new Reply(status, Map.of("Content-Type", contentType), List.of(body), Duration.ZERO, Duration.ZERO, false, false);
  }

  private static ModelException failure(Runnable call) {
    try {
      call.run();
    } catch (ModelException e) {
      return e;
    }
    throw new AssertionError("the call succeeded");
  }

  // ---- the base URL, with and without /v1 ----

  @Test
  void theFullChatCompletionsUrlAsBaseUrlIsUnderstood() {
    server.enqueue(FakeModelServer.openAiText("ok"));

    assertThat(askOpenAi("/v1/chat/completions").message().text()).isEqualTo("ok");
    assertThat(server.lastRequest().path()).isEqualTo("/v1/chat/completions");
  }

  @Test
  void anAnthropicBaseUrlEndingInV1OrTheMessagesPathIsUnderstood() {
    server.enqueue(FakeModelServer.anthropicText("a"), FakeModelServer.anthropicText("b"));
    for (String path : List.of("/v1", "/v1/messages/")) {
      new AnthropicChatModel(server.url(path), "k", "claude", 1024, OpenAiChatModelTest.FAST)
          .stream(hello(), StreamListener.IGNORE, new Cancellation());
    }

    assertThat(server.requests()).extracting(FakeModelServer.Request::path)
        .containsExactly("/v1/messages", "/v1/messages");
  }

  @Test
  void a404FromABaseUrlWithoutV1SuggestsAddingIt() {
    server.enqueue(typed(404, "text/plain", "404 page not found"));

    ModelException e = failure(() -> askOpenAi(""));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.NOT_FOUND);
    assertThat(e.getMessage()).contains("404 page not found", "OPENAI_BASE_URL", "ends in /v1", server.url("/v1").toString());
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void a404ForAModelThatDoesNotExistDoesNotTalkAboutV1() {
    server.enqueue(Reply.status(404, "{\"error\":{\"message\":\"model \\\"qwen9\\\" not found, try pulling it first\","
        + "\"type\":\"api_error\",\"param\":null,\"code\":null}}"));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.getMessage()).contains("'m'", "model \"qwen9\" not found", "--model").doesNotContain("ends in /v1");
  }

  @Test
  void aServerThatTakesNoPostThereIsAWrongBaseUrlNotABadRequest() {
    server.enqueue(typed(405, "text/plain", ""));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.NOT_FOUND);
    assertThat(e.getMessage()).contains("HTTP 405", "OPENAI_BASE_URL");
  }

  // ---- something that is no model API ----

  @Test
  void aWebPageAsErrorIsNamedByItsTitleNotQuotedAsHtml() {
    server.enqueue(typed(400, "text/html", "<html>\r\n<head><title>400 The plain HTTP request was sent to HTTPS port"
        + "</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>The plain HTTP request was "
        + "sent to HTTPS port</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.getMessage()).contains("web page \"400 The plain HTTP request was sent to HTTPS port\"")
        .doesNotContain("<html>").doesNotContain("<center>");
  }

  @Test
  void aProxysBadGatewayPageIsRetriedThenNamedByItsTitle() {
    Reply page = typed(502, "text/html", "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
        + "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>");
    server.enqueue(page, page, page, page);

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.SERVER);
    assertThat(e.getMessage()).contains("HTTP 502", "\"502 Bad Gateway\"").doesNotContain("<head>");
    assertThat(server.requests()).hasSize(4);
  }

  @Test
  void aLoginPortalAnsweringWith200IsNamedByItsTitle() {
    server.enqueue(typed(200, "text/html; charset=UTF-8", "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        + "<title>Sign in - Corporate Gateway</title>\n</head>\n<body><form></form></body>\n</html>\n"));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("web page (HTML) \"Sign in - Corporate Gateway\"", "OPENAI_BASE_URL");
  }

  @Test
  void aRedirectSaysWhereToAndWhichSettingToChange() {
    server.enqueue(typed(301, "text/html", "<html><head><title>301 Moved Permanently</title></head></html>")
        .withHeader("Location", "https://models.example.com/v1/chat/completions"));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("redirects to https://models.example.com/v1/chat/completions",
        "OPENAI_BASE_URL", "https://models.example.com/v1");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aPlainTextAnswerIsNotAStreamAndNotABrokenConnection() {
    server.enqueue(typed(200, "text/plain; charset=utf-8", "Ollama is running"));

    ModelException e = failure(() -> askOpenAi(""));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("Ollama is running", "not an OpenAI-compatible endpoint", "OPENAI_BASE_URL")
        .doesNotContain("broke");
    assertThat(server.requests()).as("not retried").hasSize(1);
  }

  @Test
  void jsonThatIsNoCompletionIsNotAnEmptyAnswer() {
    server.enqueue(typed(200, "application/json", "{\"status\":\"ok\",\"version\":\"1.4.2\"}"));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("{\"status\":\"ok\"", "not a chat completion", "OPENAI_BASE_URL");
  }

  @Test
  void aStreamWithNothingButDoneIsNotAnEmptyAnswer() {
    server.enqueue(Reply.sse(FakeModelServer.OPENAI_DONE));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("no answer");
  }

  @Test
  void llamaCppsErrorFieldStillReadsAsAStreamNotAsSomethingElse() {
    server.enqueue(FakeModelServer.llamaCppStreamError("the request exceeds the available context size", "exceed_context_size_error", 400));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.CONTEXT_TOO_LONG);
  }

  @Test
  void anAnthropicJsonAnswerThatIsNoStreamSaysSo() {
    server.enqueue(typed(200, "application/json", "{\"status\":\"ok\"}"));

    ModelException e = failure(() -> new AnthropicChatModel(server.baseUrl(), "k", "claude", 1024, OpenAiChatModelTest.FAST)
        .stream(hello(), StreamListener.IGNORE, new Cancellation()));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("ANTHROPIC_BASE_URL").doesNotContain("broke");
  }

  // ---- no server there ----

  private static ModelException failureAt(String url) {
    return failure(() -> new OpenAiChatModel(URI.create(url), null, "m", 0,
        OpenAiChatModelTest.FAST.withMaxRetries(0), d -> Duration.ofMillis(1))
        .stream(hello(), StreamListener.IGNORE, new Cancellation()));
  }

  @Test
  void aHostThatDoesNotExistIsAnUnknownHostNotARefusedConnection() {
    ModelException e = failureAt("http://no-such-host.invalid/v1");

    assertThat(e.kind()).isEqualTo(ModelException.Kind.NETWORK);
    assertThat(e.getMessage()).contains("unknown host", "no-such-host.invalid", "OPENAI_BASE_URL")
        .doesNotContain("refused");
  }

  @Test
  void httpsToAPlainHttpServerSuggestsHttp() {
    ModelException e = failureAt(server.url("/v1").toString().replace("http:", "https:"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.NETWORK);
    assertThat(e.getMessage()).contains("http://", "OPENAI_BASE_URL");
  }

  // ---- stopped by the provider, with nothing to show ----

  @Test
  void anAnthropicRefusalStopReasonEndsTheTurnSayingSoNotWithAnEmptyAnswer() {
    server.enqueue(Reply.sse(FakeModelServer.anthropicMessageStart(20),
        FakeModelServer.anthropicMessageDelta("refusal", 0), FakeModelServer.ANTHROPIC_STOP));

    ModelException e = failure(() -> new AnthropicChatModel(server.baseUrl(), "sk-wrong-server", "claude", 1024,
        OpenAiChatModelTest.FAST).stream(hello(), StreamListener.IGNORE, new Cancellation()));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.REFUSED);
    assertThat(e.getMessage()).contains("declined");
  }

  @Test
  void anOpenAiContentFilterStopWithNothingSaidEndsTheTurnSayingSo() {
    server.enqueue(Reply.sse(FakeModelServer.data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
        + "\"content\":\"\"},\"finish_reason\":null}]}"), FakeModelServer.openAiFinish("content_filter"),
        FakeModelServer.OPENAI_DONE));

    ModelException e = failure(() -> askOpenAi("/v1"));

    assertThat(e.kind()).isEqualTo(ModelException.Kind.REFUSED);
    assertThat(e.getMessage()).contains("content filter");
  }
}
