package dev.waymark.core.model;

import static dev.waymark.core.testing.FakeModelServer.ANTHROPIC_STOP;
import static dev.waymark.core.testing.FakeModelServer.anthropicBlockStop;
import static dev.waymark.core.testing.FakeModelServer.anthropicJsonDelta;
import static dev.waymark.core.testing.FakeModelServer.anthropicMessageDelta;
import static dev.waymark.core.testing.FakeModelServer.anthropicMessageStart;
import static dev.waymark.core.testing.FakeModelServer.anthropicText;
import static dev.waymark.core.testing.FakeModelServer.anthropicTextDelta;
import static dev.waymark.core.testing.FakeModelServer.anthropicTextStart;
import static dev.waymark.core.testing.FakeModelServer.anthropicToolStart;
import static dev.waymark.core.testing.FakeModelServer.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Anthropic Messages client against a fake server: what it sends, and how it reads streams. */
class AnthropicChatModelTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The prompt-caching mark, in the single-quoted JSON of these tests. */
  private static final String CACHED = "'cache_control':{'type':'ephemeral'}";

  private final FakeModelServer server = FakeModelServer.start();
  private final RecordingListener listener = new RecordingListener();

  @AfterEach
  void stop() {
    server.close();
  }

  private AnthropicChatModel model() {
    return new AnthropicChatModel(
        server.baseUrl(), "sk-ant-test", "claude-test", 4096, OpenAiChatModelTest.FAST, d -> Duration.ofMillis(1));
  }

  private ChatResponse ask(ChatRequest request) {
    return model().stream(request, listener, new Cancellation());
  }

  /** A model with extended thinking on: a budget of 2048 tokens. */
  private AnthropicChatModel thinking(int maxTokens) {
    return new AnthropicChatModel(Endpoint.anthropic(server.baseUrl(), "sk-ant-test"), "claude-sonnet-4-5", maxTokens,
        2048, OpenAiChatModelTest.FAST, d -> Duration.ofMillis(1));
  }

  private ChatResponse think(ChatRequest request) {
    return thinking(0).stream(request, listener, new Cancellation());
  }

  private static ChatRequest hello() {
    return new ChatRequest(null, List.of(new ChatMessage.User("hi")), List.of());
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void streamsTextAndReportsUsageAndStopReason() {
    server.enqueue(anthropicText("Hel", "lo"));

    ChatResponse response = ask(hello());

    assertThat(listener.texts).containsExactly("Hel", "lo");
    assertThat(response.message().text()).isEqualTo("Hello");
    assertThat(response.usage()).contains(new ChatResponse.Usage(12, 7));
    assertThat(response.stopReason()).isEqualTo("end_turn");
  }

  @Test
  void postsToV1MessagesWithKeyVersionAndMaxTokens() throws Exception {
    server.enqueue(anthropicText("ok"));

    ask(hello());

    FakeModelServer.Request sent = server.lastRequest();
    assertThat(sent.path()).isEqualTo("/v1/messages");
    assertThat(sent.header("x-api-key")).isEqualTo("sk-ant-test");
    assertThat(sent.header("anthropic-version")).isEqualTo("2023-06-01");
    assertThat(sent.header("Authorization")).isNull();
    assertThat(sent.json())
        .isEqualTo(
            json(
                "{'model':'claude-test','max_tokens':4096,'stream':true,"
                    + "'messages':[{'role':'user','content':[{'type':'text','text':'hi'," + CACHED + "}]}]}"));
  }

  @Test
  void mapsSystemToolUseAndGroupsConsecutiveToolResultsIntoOneUserMessage() throws Exception {
    server.enqueue(anthropicText("ok"));
    JsonNode schema = json("{'type':'object','properties':{'path':{'type':'string'}}}");
    ChatRequest request =
        new ChatRequest(
            null,
            List.of(
                new ChatMessage.System("be brief"),
                new ChatMessage.User("read a and b"),
                new ChatMessage.Assistant(
                    "Reading.",
                    List.of(
                        new ToolCall("toolu_1", "read_file", "{\"path\":\"a\"}"),
                        new ToolCall("toolu_2", "read_file", "{\"path\":\"b\"}"))),
                new ChatMessage.ToolResult("toolu_1", "read_file", "A", false),
                new ChatMessage.ToolResult("toolu_2", "read_file", "no such file", true),
                new ChatMessage.User("also: hurry"),
                new ChatMessage.Assistant("Done.", List.of()),
                new ChatMessage.User("thanks")),
            List.of(new ToolSpec("read_file", "Reads a file", schema)));

    ask(request);

    assertThat(server.lastRequest().json())
        .isEqualTo(
            json(
                "{'model':'claude-test','max_tokens':4096,'stream':true,"
                    + "'system':[{'type':'text','text':'be brief'," + CACHED + "}],"
                    + "'messages':["
                    + "{'role':'user','content':[{'type':'text','text':'read a and b'}]},"
                    + "{'role':'assistant','content':[{'type':'text','text':'Reading.'},"
                    + "  {'type':'tool_use','id':'toolu_1','name':'read_file','input':{'path':'a'}},"
                    + "  {'type':'tool_use','id':'toolu_2','name':'read_file','input':{'path':'b'}}]},"
                    + "{'role':'user','content':["
                    + "  {'type':'tool_result','tool_use_id':'toolu_1','content':'A'},"
                    + "  {'type':'tool_result','tool_use_id':'toolu_2','content':'no such file','is_error':true},"
                    + "  {'type':'text','text':'also: hurry'}]},"
                    + "{'role':'assistant','content':[{'type':'text','text':'Done.'}]},"
                    + "{'role':'user','content':[{'type':'text','text':'thanks'," + CACHED + "}]}],"
                    + "'tools':[{'name':'read_file','description':'Reads a file',"
                    + "  'input_schema':{'type':'object','properties':{'path':{'type':'string'}}}," + CACHED + "}]}"));
  }

  @Test
  void assemblesToolUseInputFromJsonFragmentsForSeveralCalls() {
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(50),
            anthropicTextStart(0),
            anthropicTextDelta(0, "Let me look."),
            anthropicBlockStop(0),
            anthropicToolStart(1, "toolu_a", "read_file"),
            anthropicJsonDelta(1, ""),
            anthropicJsonDelta(1, "{\"path\": \"sr"),
            anthropicJsonDelta(1, "c/App.java\"}"),
            anthropicBlockStop(1),
            anthropicToolStart(2, "toolu_b", "list_dir"),
            anthropicBlockStop(2),
            anthropicMessageDelta("tool_use", 33),
            ANTHROPIC_STOP));

    ChatResponse response = ask(hello());

    assertThat(response.message().text()).isEqualTo("Let me look.");
    assertThat(response.message().toolCalls())
        .containsExactly(
            new ToolCall("toolu_a", "read_file", "{\"path\": \"src/App.java\"}"),
            new ToolCall("toolu_b", "list_dir", "{}"));
    assertThat(listener.toolStarts).containsExactly("toolu_a:read_file", "toolu_b:list_dir");
    assertThat(response.stopReason()).isEqualTo("tool_use");
    assertThat(response.usage()).contains(new ChatResponse.Usage(50, 33));
  }

  @Test
  void ignoresPingsThinkingAndUnknownEvents() {
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(1),
            event("ping", "{\"type\":\"ping\"}"),
            event("content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}"),
            event("content_block_delta",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}"),
            anthropicBlockStop(0),
            event("brand_new_event", "{\"type\":\"brand_new_event\",\"x\":1}"),
            anthropicTextStart(1),
            anthropicTextDelta(1, "answer"),
            anthropicBlockStop(1),
            anthropicMessageDelta("end_turn", 2),
            ANTHROPIC_STOP));

    ChatResponse response = ask(hello());

    assertThat(response.message().text()).isEqualTo("answer");
    assertThat(listener.texts).containsExactly("answer");
  }

  @Test
  void anOverloadedErrorEventBeforeAnyTokenIsRetried() {
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(1),
            event("error", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")),
        anthropicText("ok"));

    assertThat(ask(hello()).message().text()).isEqualTo("ok");
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void anErrorEventAfterTokensFails() {
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(1),
            anthropicTextStart(0),
            anthropicTextDelta(0, "par"),
            event("error", "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}")));

    assertThatThrownBy(() -> ask(hello()))
        .isInstanceOfSatisfying(
            ModelException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ModelException.Kind.SERVER);
              assertThat(e.getMessage()).contains("api_error", "Internal");
            });
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aStreamWithoutMessageStopIsBroken() {
    server.enqueue(
        Reply.sse(anthropicMessageStart(1), anthropicTextStart(0), anthropicTextDelta(0, "par")));

    assertThatThrownBy(() -> ask(hello()))
        .isInstanceOfSatisfying(
            ModelException.class, e -> assertThat(e.kind()).isEqualTo(ModelException.Kind.NETWORK));
  }

  @Test
  void malformedEventJsonIsAProtocolError() {
    server.enqueue(Reply.sse(anthropicMessageStart(1), "event: content_block_delta\ndata: {nope\n\n"));

    assertThatThrownBy(() -> ask(hello()))
        .isInstanceOfSatisfying(
            ModelException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
              assertThat(e.getMessage()).contains("{nope");
            });
  }

  @Test
  void a529OverloadedStatusIsRetried() {
    server.enqueue(
        Reply.status(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"),
        anthropicText("ok"));

    assertThat(ask(hello()).message().text()).isEqualTo("ok");
  }

  @Test
  void anEmptyAssistantMessageIsLeftOutAndTheUserTurnsAroundItMerge() throws Exception {
    server.enqueue(anthropicText("ok"));

    ask(
        new ChatRequest(
            null,
            List.of(
                new ChatMessage.User("one"),
                new ChatMessage.Assistant("", List.of()),
                new ChatMessage.User("two")),
            List.of()));

    assertThat(server.lastRequest().json().get("messages"))
        .isEqualTo(
            json(
                "[{'role':'user','content':[{'type':'text','text':'one'},{'type':'text','text':'two'," + CACHED + "}]}]"));
  }

  @Test
  void withoutAConfiguredLimitClaude3ModelsAsk4096TokensAndLaterOnes8192() {
    server.enqueue(FakeModelServer.anthropicText("a"), FakeModelServer.anthropicText("b"),
        FakeModelServer.anthropicText("c"));
    AnthropicChatModel model = new AnthropicChatModel(server.baseUrl(), "k", "claude-sonnet-4-5", 0, OpenAiChatModelTest.FAST);

    for (String name : List.of("claude-3-haiku-20240307", "claude-3-5-haiku-latest", "claude-sonnet-4-5")) {
      model.stream(new ChatRequest(name, List.of(new ChatMessage.User("hi")), List.of()), listener, new Cancellation());
    }

    assertThat(server.requests()).extracting(r -> r.json().get("max_tokens").asInt()).containsExactly(4096, 8192, 8192);
  }

  @Test
  void thinkingBlocksAreKeptWithTheirSignatureAndSentBackBeforeTheToolUse() throws Exception {
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(30),
            event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                + "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}"),
            event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                + "{\"type\":\"thinking_delta\",\"thinking\":\"I need to read \"}}"),
            event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                + "{\"type\":\"thinking_delta\",\"thinking\":\"a.txt first.\"}}"),
            event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                + "{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}"),
            anthropicBlockStop(0),
            anthropicToolStart(1, "toolu_01", "read_file"),
            anthropicJsonDelta(1, "{\"path\":\"a.txt\"}"),
            anthropicBlockStop(1),
            anthropicMessageDelta("tool_use", 40),
            ANTHROPIC_STOP),
        anthropicText("ok"));

    ChatResponse response = think(hello());
    assertThat(response.message().reasoning())
        .containsExactly(new ChatMessage.Reasoning("I need to read a.txt first.",
            "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds", null));
    assertThat(listener.reasoning).containsExactly("I need to read ", "a.txt first.");

    think(new ChatRequest(null, List.of(new ChatMessage.User("hi"), response.message(),
        new ChatMessage.ToolResult("toolu_01", "read_file", "A", false)), List.of()));

    assertThat(server.lastRequest().json().get("thinking")).isEqualTo(json("{'type':'enabled','budget_tokens':2048}"));
    assertThat(server.lastRequest().json().at("/messages/1/content"))
        .isEqualTo(json("[{'type':'thinking','thinking':'I need to read a.txt first.',"
            + "'signature':'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds'},"
            + "{'type':'tool_use','id':'toolu_01','name':'read_file','input':{'path':'a.txt'}}]"));
  }

  @Test
  void aRedactedThinkingBlockIsSentBackAsItCame() throws Exception {
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(30),
            event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                + "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4a\"}}"),
            anthropicBlockStop(0),
            anthropicToolStart(1, "toolu_02", "list_files"),
            anthropicBlockStop(1),
            anthropicMessageDelta("tool_use", 10),
            ANTHROPIC_STOP),
        anthropicText("ok"));

    ChatResponse response = think(hello());
    think(new ChatRequest(null, List.of(new ChatMessage.User("hi"), response.message(),
        new ChatMessage.ToolResult("toolu_02", "list_files", "a.txt", false)), List.of()));

    assertThat(server.lastRequest().json().at("/messages/1/content/0"))
        .isEqualTo(json("{'type':'redacted_thinking','data':'EmwKAhgBEgy3va3pzix/LafPsn4a'}"));
  }

  @Test
  void withThinkingOnTheRequestAsksForItAndLeavesRoomForTheAnswer() throws Exception {
    server.enqueue(anthropicText("a"), anthropicText("b"), anthropicText("c"));

    think(hello());
    thinking(16000).stream(hello(), listener, new Cancellation());
    ask(hello());

    JsonNode unset = server.requests().get(0).json();
    assertThat(unset.get("thinking")).isEqualTo(json("{'type':'enabled','budget_tokens':2048}"));
    assertThat(unset.get("max_tokens").asInt()).isEqualTo(2048 + 8192); // thinking counts against max_tokens
    assertThat(unset.has("temperature")).isFalse();
    assertThat(unset.has("tool_choice")).isFalse();
    assertThat(server.requests().get(1).json().get("max_tokens").asInt()).isEqualTo(16000);
    assertThat(server.requests().get(2).json().has("thinking")).isFalse();
  }

  @Test
  void aThinkingBudgetTheApiWouldRefuseIsRefusedBeforeAnyRequest() {
    assertThatThrownBy(() -> AnthropicChatModel.checkThinking(0, 1000))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1024");
    assertThatThrownBy(() -> AnthropicChatModel.checkThinking(4096, 4096))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("below maxTokens (4096)");
    assertThatThrownBy(() -> thinking(2048)).isInstanceOf(IllegalArgumentException.class);
    AnthropicChatModel.checkThinking(0, 0);
    AnthropicChatModel.checkThinking(4097, 4096);
    assertThat(server.requests()).isEmpty();
  }

  /** One thinking block, then a tool_use, as a stream with thinking on sends them. */
  private static Reply thinkingThenTool(String thought, String signature, String id) {
    return Reply.sse(
        anthropicMessageStart(30),
        event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            + "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}"),
        event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"thinking_delta\",\"thinking\":\"" + thought + "\"}}"),
        event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"signature_delta\",\"signature\":\"" + signature + "\"}}"),
        anthropicBlockStop(0),
        anthropicTextStart(1),
        anthropicTextDelta(1, "Reading."),
        anthropicBlockStop(1),
        anthropicToolStart(2, id, "read_file"),
        anthropicJsonDelta(2, "{\"path\":\"a.txt\"}"),
        anthropicBlockStop(2),
        anthropicMessageDelta("tool_use", 40),
        ANTHROPIC_STOP);
  }

  @Test
  void everyThinkingBlockOfATwoStepToolLoopComesBackVerbatimInTheNextRequests() throws Exception {
    server.enqueue(thinkingThenTool("First a.txt.", "c2lnLW9uZQ==", "toolu_a"),
        thinkingThenTool("Now b.", "c2lnLXR3bw==", "toolu_b"), anthropicText("Done."));
    ArrayList<ChatMessage> conversation = new ArrayList<>(List.of(new ChatMessage.User("go")));

    for (String id : List.of("toolu_a", "toolu_b")) {
      conversation.add(think(new ChatRequest(null, conversation, List.of())).message());
      conversation.add(new ChatMessage.ToolResult(id, "read_file", "content", false));
    }
    think(new ChatRequest(null, conversation, List.of()));

    JsonNode last = server.lastRequest().json();
    assertThat(last.get("thinking")).isEqualTo(json("{'type':'enabled','budget_tokens':2048}"));
    assertThat(last.at("/messages/1/content")).isEqualTo(json("[{'type':'thinking','thinking':'First a.txt.',"
        + "'signature':'c2lnLW9uZQ=='},{'type':'text','text':'Reading.'},"
        + "{'type':'tool_use','id':'toolu_a','name':'read_file','input':{'path':'a.txt'}}]"));
    assertThat(last.at("/messages/3/content/0")).isEqualTo(json("{'type':'thinking','thinking':'Now b.',"
        + "'signature':'c2lnLXR3bw=='}"));
  }

  @Test
  void withThinkingOffThinkingBlocksStayOutOfTheRequest() throws Exception {
    server.enqueue(thinkingThenTool("Hm.", "c2ln", "toolu_c"), anthropicText("ok"));

    ChatResponse response = think(hello());
    ask(new ChatRequest(null, List.of(new ChatMessage.User("hi"), response.message(),
        new ChatMessage.ToolResult("toolu_c", "read_file", "A", false)), List.of()));

    JsonNode sent = server.lastRequest().json();
    assertThat(sent.has("thinking")).isFalse();
    assertThat(sent.at("/messages/1/content/0/type").asText()).isEqualTo("text");
  }

  @Test
  void aToolLoopStartedWithoutThinkingGoesOnWithoutItInsteadOfBeingRefused() throws Exception {
    server.enqueue(anthropicText("ok"), anthropicText("ok"));
    ChatMessage.Assistant unsigned = new ChatMessage.Assistant("", List.of(new ToolCall("toolu_d", "read_file", "{}")));

    think(new ChatRequest(null, List.of(new ChatMessage.User("hi"), unsigned,
        new ChatMessage.ToolResult("toolu_d", "read_file", "A", false)), List.of()));
    think(new ChatRequest(null, List.of(new ChatMessage.User("hi"), unsigned,
        new ChatMessage.ToolResult("toolu_d", "read_file", "A", false), new ChatMessage.Assistant("A.", List.of()),
        new ChatMessage.User("next")), List.of()));

    assertThat(server.requests().get(0).json().has("thinking")).isFalse();
    assertThat(server.requests().get(1).json().has("thinking")).isTrue();
  }

  @Test
  void aPromptsImagesGoAsImageBlocksBeforeItsText() throws Exception {
    server.enqueue(anthropicText("a cat"));
    ChatMessage.Image jpeg = new ChatMessage.Image("image/jpeg", "/9j/4AA=", "cat.jpg");

    model().stream(new ChatRequest(null, List.of(new ChatMessage.User("what is this?", List.of(jpeg))), List.of()),
        listener, new Cancellation());

    JsonNode content = server.lastRequest().json().get("messages").get(0).get("content");
    assertThat(content.toString()).isEqualTo("[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":"
        + "\"image/jpeg\",\"data\":\"/9j/4AA=\"}},{\"type\":\"text\",\"text\":\"what is this?\","
        + "\"cache_control\":{\"type\":\"ephemeral\"}}]");
  }

  /** A stream as the API sent it, kept byte for byte under {@code anthropic/} in the test resources. */
  private static Reply recorded(String name) throws Exception {
    try (var in = AnthropicChatModelTest.class.getResourceAsStream("/anthropic/" + name)) {
      return Reply.sse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void recordedTurnsSayWhatWasWrittenToThePromptCacheAndThenReadFromIt() throws Exception {
    server.enqueue(recorded("cache-write.sse"), recorded("cache-read.sse"));

    ChatResponse first = ask(hello());
    ChatResponse second = ask(hello());

    assertThat(first.message().text()).isEqualTo("The build uses Maven.");
    // input is all the model read, cached or not: it is what fills the context window
    assertThat(first.usage()).contains(new ChatResponse.Usage(14 + 3210, 9, 0, 3210));
    assertThat(second.usage()).contains(new ChatResponse.Usage(11 + 23 + 3210, 6, 3210, 23));
  }

  @Test
  void theToolsTheSystemPromptAndTheLastMessageCarryTheOnlyCacheMarks() throws Exception {
    server.enqueue(anthropicText("ok"));
    List<ToolSpec> tools = List.of(new ToolSpec("read_file", "Reads", null), new ToolSpec("grep", "Finds", null));

    ask(new ChatRequest(null, List.of(new ChatMessage.System("rules"), new ChatMessage.User("read a"),
        new ChatMessage.Assistant("", List.of(new ToolCall("toolu_1", "read_file", "{\"path\":\"a\"}"))),
        new ChatMessage.ToolResult("toolu_1", "read_file", "A", false)), tools));

    JsonNode sent = server.lastRequest().json();
    assertThat(sent.findParents("cache_control")).containsExactly(sent.at("/system/0"), sent.at("/messages/2/content/0"),
        sent.at("/tools/1"));
    assertThat(sent.at("/messages/2/content/0/type").asText()).isEqualTo("tool_result");
  }

  @Test
  void aConversationThatGoesOnIsSentWithTheSameBytesBeforeItsNewPart() throws Exception {
    server.enqueue(anthropicText("ok"), anthropicText("ok"));
    JsonNode schema = json("{'type':'object','properties':{'path':{'type':'string'},'limit':{'type':'integer'}}}");
    List<ToolSpec> tools = List.of(new ToolSpec("read_file", "Reads", schema));
    List<ChatMessage> before = List.of(new ChatMessage.System("rules"), new ChatMessage.User("read a"),
        new ChatMessage.Assistant("Reading.", List.of(new ToolCall("toolu_1", "read_file", "{\"path\":\"a\",\"limit\":9}"))),
        new ChatMessage.ToolResult("toolu_1", "read_file", "A", false));
    List<ChatMessage> after = new ArrayList<>(before);
    after.add(new ChatMessage.User("and hurry")); // a steer folds into the tool results' user turn
    after.add(new ChatMessage.Assistant("Done.", List.of()));
    after.add(new ChatMessage.User("thanks"));

    ask(new ChatRequest(null, before, tools));
    ask(new ChatRequest(null, after, tools));

    // the API caches tools, then system, then messages: each comes first in the longer request as it was sent
    JsonNode first = JSON.readTree(unmarked(server.requests().get(0).body()));
    JsonNode second = JSON.readTree(unmarked(server.requests().get(1).body()));
    assertThat(second.get("tools").toString()).isEqualTo(first.get("tools").toString());
    assertThat(second.get("system").toString()).isEqualTo(first.get("system").toString());
    JsonNode shorter = first.get("messages");
    JsonNode longer = second.get("messages");
    for (int i = 0; i < shorter.size() - 1; i++) {
      assertThat(longer.get(i).toString()).isEqualTo(shorter.get(i).toString());
    }
    String lastTurn = shorter.get(shorter.size() - 1).toString();
    assertThat(longer.get(shorter.size() - 1).toString()).startsWith(lastTurn.substring(0, lastTurn.length() - 2))
        .endsWith(",{\"type\":\"text\",\"text\":\"and hurry\"}]}");
  }

  /** A body without its cache marks, which move as the conversation grows. */
  private static String unmarked(String body) {
    return body.replace(",\"cache_control\":{\"type\":\"ephemeral\"}", "");
  }
}
