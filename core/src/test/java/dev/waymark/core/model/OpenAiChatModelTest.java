package dev.waymark.core.model;

import static dev.waymark.core.testing.FakeModelServer.OPENAI_DONE;
import static dev.waymark.core.testing.FakeModelServer.data;
import static dev.waymark.core.testing.FakeModelServer.openAiFinish;
import static dev.waymark.core.testing.FakeModelServer.openAiText;
import static dev.waymark.core.testing.FakeModelServer.openAiTextChunk;
import static dev.waymark.core.testing.FakeModelServer.openAiToolChunk;
import static dev.waymark.core.testing.FakeModelServer.openAiUsage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The OpenAI-compatible client against a fake server: what it sends, and how it reads streams. */
class OpenAiChatModelTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final HttpOptions FAST =
      HttpOptions.defaults()
          .withConnectTimeout(Duration.ofSeconds(2))
          .withResponseTimeout(Duration.ofSeconds(5))
          .withIdleTimeout(Duration.ofSeconds(5));

  private final FakeModelServer server = FakeModelServer.start();
  private final RecordingListener listener = new RecordingListener();

  @AfterEach
  void stop() {
    server.close();
  }

  private OpenAiChatModel model(String key) {
    return new OpenAiChatModel(server.url("/v1"), key, "gpt-test", FAST, d -> Duration.ofMillis(1));
  }

  private ChatResponse ask(OpenAiChatModel model, ChatRequest request) {
    return model.stream(request, listener, new Cancellation());
  }

  private static ChatRequest hello() {
    return new ChatRequest(null, List.of(new ChatMessage.User("hi")), List.of());
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void streamsTextDeltasToTheListenerAndReturnsTheWholeAnswer() {
    server.enqueue(openAiText("Hel", "lo, ", "world"));

    ChatResponse response = ask(model("sk-test"), hello());

    assertThat(listener.texts).containsExactly("Hel", "lo, ", "world");
    assertThat(response.message().text()).isEqualTo("Hello, world");
    assertThat(response.message().toolCalls()).isEmpty();
    assertThat(response.usage()).contains(new ChatResponse.Usage(10, 5));
    assertThat(response.stopReason()).isEqualTo("stop");
  }

  @Test
  void postsToChatCompletionsWithStreamingUsageAndBearerKey() throws Exception {
    server.enqueue(openAiText("ok"));

    ask(model("sk-test"), hello());

    FakeModelServer.Request sent = server.lastRequest();
    assertThat(sent.method()).isEqualTo("POST");
    assertThat(sent.path()).isEqualTo("/v1/chat/completions");
    assertThat(sent.header("Authorization")).isEqualTo("Bearer sk-test");
    assertThat(sent.header("Content-Type")).isEqualTo("application/json");
    assertThat(sent.json())
        .isEqualTo(
            json(
                "{'model':'gpt-test','stream':true,'stream_options':{'include_usage':true},"
                    + "'messages':[{'role':'user','content':'hi'}]}"));
  }

  @Test
  void sendsNoAuthorizationHeaderWithoutAKey() {
    server.enqueue(openAiText("ok"), openAiText("ok"));

    ask(model(null), hello());
    ask(model("  "), hello());

    assertThat(server.requests()).allSatisfy(r -> assertThat(r.header("Authorization")).isNull());
  }

  @Test
  void theRequestsModelWinsOverTheDefault() {
    server.enqueue(openAiText("ok"));

    ask(model(null), new ChatRequest("llama3.2", List.of(new ChatMessage.User("hi")), List.of()));

    assertThat(server.lastRequest().json().get("model").asText()).isEqualTo("llama3.2");
  }

  @Test
  void mapsAWholeConversationWithToolCallsAndResultsAndTools() throws Exception {
    server.enqueue(openAiText("ok"));
    JsonNode schema = json("{'type':'object','properties':{'path':{'type':'string'}},'required':['path']}");
    ChatRequest request =
        new ChatRequest(
            null,
            List.of(
                new ChatMessage.System("be brief"),
                new ChatMessage.User("read a and b"),
                new ChatMessage.Assistant(
                    "",
                    List.of(
                        new ToolCall("call_1", "read_file", "{\"path\":\"a\"}"),
                        new ToolCall("call_2", "read_file", "{\"path\":\"b\"}"))),
                new ChatMessage.ToolResult("call_1", "read_file", "A", false),
                new ChatMessage.ToolResult("call_2", "read_file", "no such file", true),
                new ChatMessage.Assistant("Done.", List.of()),
                new ChatMessage.User("thanks")),
            List.of(new ToolSpec("read_file", "Reads a file", schema)));

    ask(model(null), request);

    assertThat(server.lastRequest().json())
        .isEqualTo(
            json(
                "{'model':'gpt-test','stream':true,'stream_options':{'include_usage':true},"
                    + "'messages':["
                    + "{'role':'system','content':'be brief'},"
                    + "{'role':'user','content':'read a and b'},"
                    + "{'role':'assistant','content':null,'tool_calls':["
                    + "  {'id':'call_1','type':'function','function':{'name':'read_file','arguments':'{\\'path\\':\\'a\\'}'}},"
                    + "  {'id':'call_2','type':'function','function':{'name':'read_file','arguments':'{\\'path\\':\\'b\\'}'}}]},"
                    + "{'role':'tool','tool_call_id':'call_1','content':'A'},"
                    + "{'role':'tool','tool_call_id':'call_2','content':'no such file'},"
                    + "{'role':'assistant','content':'Done.'},"
                    + "{'role':'user','content':'thanks'}],"
                    + "'tools':[{'type':'function','function':{'name':'read_file','description':'Reads a file',"
                    + "  'parameters':{'type':'object','properties':{'path':{'type':'string'}},'required':['path']}}}]}"));
    // the arguments really are a JSON string, not an object
    JsonNode args = server.lastRequest().json().at("/messages/2/tool_calls/0/function/arguments");
    assertThat(args.isTextual()).isTrue();
    assertThat(args.asText()).isEqualTo("{\"path\":\"a\"}");
  }

  @Test
  void assemblesSeveralToolCallsWhoseArgumentsArriveInPieces() {
    server.enqueue(
        Reply.sse(
            data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}"),
            openAiTextChunk("Let me look."),
            openAiToolChunk(0, "call_a", "read_file", ""),
            openAiToolChunk(0, null, null, "{\"pa"),
            openAiToolChunk(0, null, null, "th\": \"src/"),
            openAiToolChunk(1, "call_b", "list_dir", ""),
            openAiToolChunk(0, null, null, "App.java\"}"),
            openAiToolChunk(1, null, null, "{\"path\":\".\"}"),
            openAiFinish("tool_calls"),
            openAiUsage(100, 20),
            OPENAI_DONE));

    ChatResponse response = ask(model(null), hello());

    assertThat(response.message().text()).isEqualTo("Let me look.");
    assertThat(response.message().toolCalls())
        .containsExactly(
            new ToolCall("call_a", "read_file", "{\"path\": \"src/App.java\"}"),
            new ToolCall("call_b", "list_dir", "{\"path\":\".\"}"));
    assertThat(listener.toolStarts).containsExactly("call_a:read_file", "call_b:list_dir");
    assertThat(response.stopReason()).isEqualTo("tool_calls");
    assertThat(response.usage()).contains(new ChatResponse.Usage(100, 20));
  }

  @Test
  void toleratesWhatLocalServersLeaveOut() {
    // no tool call id, name repeated in every fragment, no usage, no [DONE] after the finish reason
    server.enqueue(
        Reply.sse(
            data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,"
                + "\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"write_file\",\"arguments\":\"{\\\"a\\\":\"}}]}}]}"),
            data("{\"choices\":[{\"index\":0,\"delta\":{\"content\":null,"
                + "\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"write_file\",\"arguments\":\"1}\"}}]}}]}"),
            openAiFinish("tool_calls")));

    ChatResponse response = ask(model(null), hello());

    ToolCall call = response.message().toolCalls().get(0);
    assertThat(call.name()).isEqualTo("write_file");
    assertThat(call.argumentsJson()).isEqualTo("{\"a\":1}");
    assertThat(call.id()).startsWith("call_").hasSizeGreaterThan(10);
    assertThat(listener.toolStarts).containsExactly(call.id() + ":write_file");
    assertThat(response.usage()).isEmpty();
    assertThat(response.message().text()).isEmpty();
  }

  @Test
  void acceptsToolCallsWithoutIndexAndArgumentsAsAnObject() {
    server.enqueue(
        Reply.sse(
            data("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
                + "{\"id\":\"x1\",\"function\":{\"name\":\"a\",\"arguments\":{\"n\":1}}},"
                + "{\"id\":\"x2\",\"function\":{\"name\":\"b\",\"arguments\":{}}}]},\"finish_reason\":\"tool_calls\"}]}"),
            OPENAI_DONE));

    ChatResponse response = ask(model(null), hello());

    assertThat(response.message().toolCalls())
        .containsExactly(new ToolCall("x1", "a", "{\"n\":1}"), new ToolCall("x2", "b", "{}"));
  }

  @Test
  void parsesSseWithCrlfCommentsBlankLinesAndEventsSplitAcrossReads() {
    String chunk = openAiTextChunk("héllo ✓").replace("\n", "\r\n");
    byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
    // split inside the JSON and inside the multi-byte 'é'
    int cut = chunk.indexOf('é') + 1;
    server.enqueue(
        Reply.sse(
            ": keep-alive comment\r\n\r\n",
            "\r\n",
            chunk.substring(0, 10),
            chunk.substring(10, cut),
            chunk.substring(cut),
            "data:" + openAiTextChunk("!").substring("data: ".length()), // no space after the colon
            openAiFinish("stop"),
            "data: [DONE]"));
    assertThat(bytes.length).isGreaterThan(chunk.length());

    ChatResponse response = ask(model(null), hello());

    assertThat(response.message().text()).isEqualTo("héllo ✓!");
  }

  @Test
  void malformedEventJsonIsAProtocolErrorQuotingIt() {
    server.enqueue(Reply.sse(openAiTextChunk("a"), data("{\"choices\": [oops"), OPENAI_DONE));

    assertThatThrownBy(() -> ask(model(null), hello()))
        .isInstanceOfSatisfying(
            ModelException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
              assertThat(e.getMessage()).contains("{\"choices\": [oops");
            });
  }

  @Test
  void anErrorObjectInTheStreamAfterTokensIsAServerError() {
    server.enqueue(
        Reply.sse(openAiTextChunk("a"), data("{\"error\":{\"message\":\"model crashed\"}}")));

    assertThatThrownBy(() -> ask(model(null), hello()))
        .isInstanceOfSatisfying(
            ModelException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ModelException.Kind.SERVER);
              assertThat(e.getMessage()).contains("model crashed");
            });
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void noModelAnywhereIsABadRequestBeforeAnyTraffic() {
    OpenAiChatModel model = new OpenAiChatModel(server.url("/v1"), null, null, FAST);

    assertThatThrownBy(() -> model.stream(hello(), listener, new Cancellation()))
        .isInstanceOfSatisfying(
            ModelException.class,
            e -> assertThat(e.kind()).isEqualTo(ModelException.Kind.BAD_REQUEST));
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aBaseUrlWithATrailingSlashWorks() {
    server.enqueue(openAiText("ok"));
    OpenAiChatModel model = new OpenAiChatModel(server.url("/v1/"), null, "m", FAST);

    model.stream(hello(), listener, new Cancellation());

    assertThat(server.lastRequest().path()).isEqualTo("/v1/chat/completions");
    assertThat(Optional.of(listener.text())).contains("ok");
  }

  @Test
  void understandsAServerThatIgnoresStreamingAndAnswersWithOneJsonCompletion() {
    server.enqueue(
        Reply.status(
            200,
            "{\"id\":\"x\",\"choices\":[{\"index\":0,\"finish_reason\":\"tool_calls\",\"message\":"
                + "{\"role\":\"assistant\",\"content\":\"Reading.\",\"tool_calls\":["
                + "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{}\"}},"
                + "{\"type\":\"function\",\"function\":{\"name\":\"list_dir\",\"arguments\":\"{\\\"p\\\":1}\"}}]}}],"
                + "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}"));

    ChatResponse response = ask(model(null), hello());

    assertThat(listener.texts).containsExactly("Reading.");
    assertThat(response.message().toolCalls()).hasSize(2);
    assertThat(response.message().toolCalls().get(0)).isEqualTo(new ToolCall("c1", "read_file", "{}"));
    assertThat(response.message().toolCalls().get(1).name()).isEqualTo("list_dir");
    assertThat(response.message().toolCalls().get(1).argumentsJson()).isEqualTo("{\"p\":1}");
    assertThat(response.usage()).contains(new ChatResponse.Usage(7, 3));
    assertThat(response.stopReason()).isEqualTo("tool_calls");
  }

  @Test
  void theCachedPartOfThePromptIsReportedAsCacheReads() {
    server.enqueue(Reply.sse(openAiTextChunk("ok"), openAiFinish("stop"),
        data("{\"choices\":[],\"usage\":{\"prompt_tokens\":2006,\"completion_tokens\":300,"
            + "\"total_tokens\":2306,\"prompt_tokens_details\":{\"cached_tokens\":1920,\"audio_tokens\":0}}}"),
        OPENAI_DONE));

    ChatResponse response = ask(model(null), hello());

    assertThat(response.usage()).contains(new ChatResponse.Usage(2006, 300, 1920, 0));
  }

  // ---- Ollama: parallel tool calls all at index 0 ----

  @Test
  void ollamasParallelToolCallsAllAtIndexZeroStaySeparateCalls() {
    server.enqueue(
        FakeModelServer.ollamaParallelToolCalls(
            "write_file", "{\"content\":\"print('hello')\",\"path\":\"hello.py\"}",
            "write_file", "{\"content\":\"print('world')\",\"path\":\"world.py\"}"));

    ChatResponse response = ask(model(null), hello());

    assertThat(response.message().toolCalls())
        .containsExactly(
            new ToolCall("call_u5gdnvta", "write_file", "{\"content\":\"print('hello')\",\"path\":\"hello.py\"}"),
            new ToolCall("call_u5gdnvtb", "write_file", "{\"content\":\"print('world')\",\"path\":\"world.py\"}"));
    assertThat(listener.toolStarts).containsExactly("call_u5gdnvta:write_file", "call_u5gdnvtb:write_file");
    assertThat(response.usage()).contains(new ChatResponse.Usage(412, 61));
  }

  @Test
  void twoCallsInOneChunkBothAtIndexZeroStaySeparate() {
    server.enqueue(
        Reply.sse(
            data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":["
                + "{\"id\":\"call_1\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}},"
                + "{\"id\":\"call_2\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"b\\\"}\"}}]},"
                + "\"finish_reason\":null}]}"),
            openAiFinish("tool_calls"),
            OPENAI_DONE));

    ChatResponse response = ask(model(null), hello());

    assertThat(response.message().toolCalls())
        .containsExactly(
            new ToolCall("call_1", "read_file", "{\"path\":\"a\"}"),
            new ToolCall("call_2", "read_file", "{\"path\":\"b\"}"));
  }

  @Test
  void aCompleteObjectFollowedByAnotherUnderTheSameIndexStartsANewCall() {
    // no new id: the second object begins after the first one closed
    server.enqueue(
        Reply.sse(
            openAiToolChunk(0, null, "read_file", "{\"path\":"),
            openAiToolChunk(0, null, null, "\"a\"}"),
            openAiToolChunk(0, null, "read_file", "{\"path\":\"b\"}"),
            openAiFinish("tool_calls"),
            OPENAI_DONE));

    ChatResponse response = ask(model(null), hello());

    assertThat(response.message().toolCalls())
        .extracting(ToolCall::name, ToolCall::argumentsJson)
        .containsExactly(
            Tuple.tuple("read_file", "{\"path\":\"a\"}"),
            Tuple.tuple("read_file", "{\"path\":\"b\"}"));
    assertThat(response.message().toolCalls().get(0).id())
        .isNotEqualTo(response.message().toolCalls().get(1).id());
  }

  @Test
  void aCallWhoseArgumentsAreNotOneJsonObjectIsSentBackAsAnEmptyObjectSoTheServerAcceptsTheHistory() {
    server.enqueue(openAiText("ok"));
    ChatRequest request =
        new ChatRequest(
            null,
            List.of(
                new ChatMessage.User("go"),
                new ChatMessage.Assistant(
                    "",
                    List.of(
                        new ToolCall("call_1", "read_file", "{\"path\":\"a\"}{\"path\":\"b\"}"),
                        new ToolCall("call_2", "read_file", "{\"path\":"),
                        new ToolCall("call_3", "read_file", "{\"path\":\"c\"}"))),
                new ChatMessage.ToolResult("call_1", "read_file", "not one JSON object", true),
                new ChatMessage.ToolResult("call_2", "read_file", "not one JSON object", true),
                new ChatMessage.ToolResult("call_3", "read_file", "C", false)),
            List.of());

    ask(model(null), request);

    JsonNode calls = server.lastRequest().json().at("/messages/1/tool_calls");
    assertThat(calls.get(0).at("/function/arguments").asText()).isEqualTo("{}");
    assertThat(calls.get(1).at("/function/arguments").asText()).isEqualTo("{}");
    assertThat(calls.get(2).at("/function/arguments").asText()).isEqualTo("{\"path\":\"c\"}");
  }

  @Test
  void aConfiguredMaxTokensIsSentAndNoneIsSentWithout() {
    server.enqueue(openAiText("a"), openAiText("b"));

    new OpenAiChatModel(server.url("/v1"), null, "m", 2048, FAST).stream(hello(), listener, new Cancellation());
    ask(model(null), hello());

    assertThat(server.requests().get(0).json().get("max_tokens").asInt()).isEqualTo(2048);
    assertThat(server.requests().get(1).json().has("max_tokens")).isFalse();
  }

  /** What api.openai.com answers when a reasoning model (o1, o3, gpt-5) gets max_tokens, as documented by its users. */
  static final String OPENAI_REFUSES_MAX_TOKENS = "{\n  \"error\": {\n    \"message\": \"Unsupported parameter: 'max_tokens' is "
      + "not supported with this model. Use 'max_completion_tokens' instead.\",\n    \"type\": \"invalid_request_error\",\n"
      + "    \"param\": \"max_tokens\",\n    \"code\": \"unsupported_parameter\"\n  }\n}";

  @Test
  void openAisOwnApiGetsMaxCompletionTokensAndOtherServersMaxTokens() {
    assertThat(OpenAiChatModel.initialMaxTokensField(URI.create("https://api.openai.com/v1")))
        .isEqualTo("max_completion_tokens");
    for (String other : List.of("http://localhost:11434/v1", "http://127.0.0.1:8080/v1", "https://api.deepseek.com",
        "https://openrouter.ai/api/v1")) {
      assertThat(OpenAiChatModel.initialMaxTokensField(URI.create(other))).as(other).isEqualTo("max_tokens");
    }
  }

  @Test
  void aServerThatRefusesMaxTokensGetsTheLimitAsMaxCompletionTokensOnceAndFromThenOn() {
    server.enqueue(Reply.status(400, OPENAI_REFUSES_MAX_TOKENS), openAiText("first"), openAiText("second"));
    OpenAiChatModel model = new OpenAiChatModel(server.url("/v1"), "sk-x", "o3-mini", 4000, FAST, d -> Duration.ofMillis(1));

    assertThat(ask(model, hello()).message().text()).isEqualTo("first");
    assertThat(ask(model, hello()).message().text()).isEqualTo("second");

    assertThat(server.requests()).hasSize(3);
    assertThat(server.requests().get(0).json().get("max_tokens").asInt()).isEqualTo(4000);
    for (int i = 1; i < 3; i++) {
      JsonNode body = server.requests().get(i).json();
      assertThat(body.has("max_tokens")).isFalse();
      assertThat(body.get("max_completion_tokens").asInt()).isEqualTo(4000);
    }
  }

  @Test
  void aServerThatRefusesMaxCompletionTokensGetsMaxTokensBack() {
    // a strict (pydantic) server, reached after an earlier refusal switched the name
    server.enqueue(Reply.status(400, OPENAI_REFUSES_MAX_TOKENS), openAiText("first"),
        Reply.status(400, "{\"object\":\"error\",\"message\":\"[{'type': 'extra_forbidden', 'loc': ('body', "
            + "'max_completion_tokens'), 'msg': 'Extra inputs are not permitted'}]\",\"type\":\"BadRequestError\","
            + "\"param\":null,\"code\":400}"),
        openAiText("second"));
    OpenAiChatModel model = new OpenAiChatModel(server.url("/v1"), null, "m", 512, FAST, d -> Duration.ofMillis(1));

    ask(model, hello());
    assertThat(ask(model, hello()).message().text()).isEqualTo("second");

    assertThat(server.requests()).extracting(r -> r.json().has("max_tokens"))
        .containsExactly(true, false, false, true);
  }

  @Test
  void aRefusedValueOfMaxTokensIsNotRetriedUnderTheOtherName() {
    server.enqueue(Reply.status(400, "{\"error\":{\"message\":\"max_tokens is too large: 100000. This model supports at most "
        + "16384 completion tokens, whereas you provided 100000.\",\"type\":\"invalid_request_error\",\"param\":\"max_tokens\","
        + "\"code\":\"invalid_value\"}}"));
    OpenAiChatModel model = new OpenAiChatModel(server.url("/v1"), null, "m", 100000, FAST, d -> Duration.ofMillis(1));

    assertThatThrownBy(() -> ask(model, hello()))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining("max_tokens is too large");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void withoutAConfiguredLimitARefusalNamingMaxTokensIsNotRetried() {
    server.enqueue(Reply.status(400, OPENAI_REFUSES_MAX_TOKENS));

    assertThatThrownBy(() -> ask(model(null), hello())).isInstanceOf(ModelException.class);
    assertThat(server.requests()).hasSize(1);
  }

  // ---- reasoning models ----

  private static String deepSeekChunk(String delta, String finish) {
    return data("{\"id\":\"a1b2c3\",\"object\":\"chat.completion.chunk\",\"created\":1763900000,\"model\":\"deepseek-chat\","
        + "\"system_fingerprint\":\"fp_ffc7281d48_prod0820_fp8_kvcache\",\"choices\":[{\"index\":0,\"delta\":" + delta
        + ",\"logprobs\":null,\"finish_reason\":" + (finish == null ? "null" : "\"" + finish + "\"") + "}]}");
  }

  @Test
  void deepSeeksReasoningContentIsKeptAndSentBackOnTheAssistantMessageWithToolCalls() throws Exception {
    server.enqueue(
        Reply.sse(
            deepSeekChunk("{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"\"}", null),
            deepSeekChunk("{\"content\":null,\"reasoning_content\":\"The user wants \"}", null),
            deepSeekChunk("{\"content\":null,\"reasoning_content\":\"a.txt.\"}", null),
            deepSeekChunk("{\"content\":null,\"reasoning_content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_00_x1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}", null),
            deepSeekChunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}}]}", null),
            deepSeekChunk("{\"content\":\"\",\"reasoning_content\":null}", "tool_calls"),
            OPENAI_DONE),
        openAiText("ok"));

    ChatResponse response = ask(model("sk-x"), hello());
    assertThat(response.message().reasoning())
        .containsExactly(new ChatMessage.Reasoning("The user wants a.txt.", null, null));
    assertThat(listener.reasoning).containsExactly("The user wants ", "a.txt.");
    assertThat(listener.texts).isEmpty();

    ask(model("sk-x"), new ChatRequest(null, List.of(new ChatMessage.User("hi"), response.message(),
        new ChatMessage.ToolResult("call_00_x1", "read_file", "A", false),
        new ChatMessage.Assistant("Done.", List.of(), List.of(new ChatMessage.Reasoning("Easy.", null, null)))), List.of()));

    JsonNode messages = server.lastRequest().json().get("messages");
    assertThat(messages.get(1).get("reasoning_content").asText()).isEqualTo("The user wants a.txt.");
    assertThat(messages.get(3).has("reasoning_content")).isFalse();
  }

  @Test
  void aPromptsImagesGoAsContentPartsWithTheirText() throws Exception {
    server.enqueue(openAiText("a cat"));
    ChatMessage.Image png = new ChatMessage.Image("image/png", "iVBORw0KGgo=", "cat.png");

    ask(model("sk-test"), new ChatRequest(null, List.of(new ChatMessage.User("what is this?", List.of(png))), List.of()));

    JsonNode content = server.lastRequest().json().get("messages").get(0).get("content");
    assertThat(content).isEqualTo(json("[{'type':'text','text':'what is this?'},"
        + "{'type':'image_url','image_url':{'url':'data:image/png;base64,iVBORw0KGgo='}}]"));
  }
}
