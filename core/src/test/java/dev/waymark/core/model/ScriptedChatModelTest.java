package dev.waymark.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.testing.Running;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scripted model: replays a JSON script, one response per call. */
class ScriptedChatModelTest {
  @TempDir Path dir;

  private final RecordingListener listener = new RecordingListener();

  private static ChatRequest user(String text) {
    return new ChatRequest(null, List.of(new ChatMessage.User(text)), List.of());
  }

  private static ScriptedChatModel scripted(String json) {
    return new ScriptedChatModel(ScriptedChatModel.parse(json.replace('\'', '"'), "test"));
  }

  private static ModelException.Kind kindOf(Throwable t) {
    return ((ModelException) t).kind();
  }

  @Test
  void eachCallConsumesTheNextResponseStreamingTextInSmallChunks() {
    ScriptedChatModel model =
        scripted("{'responses':[{'text':'Hello there, world!'},{'text':'second'}]}");

    ChatResponse first = model.stream(user("a"), listener, new Cancellation());
    ChatResponse second = model.stream(user("b"), StreamListener.IGNORE, new Cancellation());

    assertThat(listener.texts).containsExactly("Hello th", "ere, wor", "ld!");
    assertThat(first.message().text()).isEqualTo("Hello there, world!");
    assertThat(first.stopReason()).isEqualTo("end_turn");
    assertThat(second.message().text()).isEqualTo("second");
    assertThat(model.consumed()).isEqualTo(2);
  }

  @Test
  void toolCallsGetDeterministicIdsAndTheirArgumentsAsJson() {
    ScriptedChatModel model =
        scripted(
            "{'responses':[{'text':'Writing.','toolCalls':["
                + "{'name':'write_file','arguments':{'path':'a.txt','content':'hi'}},"
                + "{'id':'mine','name':'run','arguments':'{\\'cmd\\':\\'ls\\'}'},"
                + "{'name':'noargs'}]}]}");

    ChatResponse response = model.stream(user("go"), listener, new Cancellation());

    assertThat(response.message().toolCalls())
        .containsExactly(
            new ToolCall("call_1_1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hi\"}"),
            new ToolCall("mine", "run", "{\"cmd\":\"ls\"}"),
            new ToolCall("call_1_3", "noargs", "{}"));
    assertThat(listener.toolStarts).containsExactly("call_1_1:write_file", "mine:run", "call_1_3:noargs");
    assertThat(response.stopReason()).isEqualTo("tool_use");
  }

  @Test
  void runningOutOfResponsesIsAClearError() {
    ScriptedChatModel model = scripted("{'responses':[{'text':'only'}]}");
    model.stream(user("a"), listener, new Cancellation());

    assertThatThrownBy(() -> model.stream(user("b"), listener, new Cancellation()))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining("no response #2")
        .hasMessageContaining("only 1")
        .satisfies(t -> assertThat(kindOf(t)).isEqualTo(ModelException.Kind.PROTOCOL));
  }

  @Test
  void whenLastUserPicksTheFirstUnusedResponseMeantForThePrompt() {
    ScriptedChatModel model = scripted("{'responses':["
        + "{'whenLastUser':'alpha','text':'alpha one'},{'whenLastUser':'beta','text':'beta one'},"
        + "{'whenLastUser':'alpha','text':'alpha two'},{'text':'anything'}]}");

    assertThat(model.stream(user("make beta"), listener, new Cancellation()).message().text()).isEqualTo("beta one");
    assertThat(model.stream(user("make alpha"), listener, new Cancellation()).message().text()).isEqualTo("alpha one");
    assertThat(model.stream(user("alpha again"), listener, new Cancellation()).message().text()).isEqualTo("alpha two");
    assertThat(model.stream(user("beta again"), listener, new Cancellation()).message().text()).isEqualTo("anything");
    assertThatThrownBy(() -> model.stream(user("alpha"), listener, new Cancellation()))
        .isInstanceOf(ModelException.class).hasMessageContaining("no response #5");
  }

  @Test
  void expectLastUserChecksWhatTheAgentSent() {
    ScriptedChatModel model =
        scripted("{'responses':[{'expectLastUser':'fix the bug','text':'ok'},{'expectLastUser':'thanks'}]}");
    ChatRequest withToolResultLast =
        new ChatRequest(
            null,
            List.of(
                new ChatMessage.User("please fix the bug in A"),
                new ChatMessage.Assistant("", List.of(new ToolCall("c", "t", "{}"))),
                new ChatMessage.ToolResult("c", "t", "done", false)),
            List.of());

    assertThat(model.stream(withToolResultLast, listener, new Cancellation()).message().text())
        .isEqualTo("ok");
    assertThatThrownBy(() -> model.stream(user("bye"), listener, new Cancellation()))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining("response #2")
        .hasMessageContaining("\"thanks\"")
        .hasMessageContaining("\"bye\"");
  }

  @Test
  void usageStopReasonAndErrorsCanBeScripted() {
    ScriptedChatModel model =
        scripted(
            "{'responses':[{'text':'x','stopReason':'max_tokens','usage':{'inputTokens':3,'outputTokens':4}},"
                + "{'error':{'kind':'RATE_LIMITED','message':'slow down'}}]}");

    ChatResponse response = model.stream(user("a"), listener, new Cancellation());
    assertThat(response.stopReason()).isEqualTo("max_tokens");
    assertThat(response.usage()).contains(new ChatResponse.Usage(3, 4));
    assertThatThrownBy(() -> model.stream(user("b"), listener, new Cancellation()))
        .isInstanceOf(ModelException.class)
        .hasMessage("slow down")
        .satisfies(t -> assertThat(kindOf(t)).isEqualTo(ModelException.Kind.RATE_LIMITED));
  }

  @Test
  void aDelayedResponseEndsAtOnceWhenCancelled() throws Exception {
    ScriptedChatModel model = scripted("{'responses':[{'delayMs':600000,'text':'late'}]}"); // only a cancel ends it
    Cancellation cancellation = new Cancellation();
    Running<ChatResponse> call = Running.start("call", () -> model.stream(user("a"), listener, cancellation))
        .awaitIn("ScriptedChatModel.pause"); // the delay

    cancellation.cancel();

    assertThatThrownBy(() -> call.get(10))
        .isInstanceOf(ExecutionException.class)
        .satisfies(e -> assertThat(kindOf(e.getCause())).isEqualTo(ModelException.Kind.CANCELLED));
    assertThat(listener.texts).isEmpty();
  }

  @Test
  void readsAScriptFile() throws Exception {
    Path file = dir.resolve("script.json");
    Files.writeString(file, "{\"responses\": [{\"text\": \"from file\"}]}");

    ChatResponse response = new ScriptedChatModel(file).stream(user("a"), listener, new Cancellation());

    assertThat(response.message().text()).isEqualTo("from file");
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("nope.json");

    assertThatThrownBy(() -> new ScriptedChatModel(missing))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining(missing.toString())
        .satisfies(t -> assertThat(kindOf(t)).isEqualTo(ModelException.Kind.NOT_FOUND));
  }

  @Test
  void corruptJsonNamesPathLineAndColumn() throws Exception {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"responses\": [\n  {\"text\": \"a\"},\n  {\"text\": oops}\n]}");

    assertThatThrownBy(() -> new ScriptedChatModel(file))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("line 3, column")
        .satisfies(t -> assertThat(kindOf(t)).isEqualTo(ModelException.Kind.PROTOCOL));
  }

  @Test
  void aMisspelledFieldIsAnErrorNotIgnored() throws Exception {
    Path file = dir.resolve("typo.json");
    Files.writeString(file, "{\"responses\": [\n  {\"txet\": \"a\"}\n]}");

    assertThatThrownBy(() -> new ScriptedChatModel(file))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining("line 2, column")
        .hasMessageContaining("txet");
  }

  @Test
  void aToolCallWithoutANameIsRejectedWithItsLocation() {
    assertThatThrownBy(() -> scripted("{'responses':[{'toolCalls':[{'arguments':{}}]}]}"))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining("line 1, column")
        .hasMessageContaining("needs a \"name\"");
  }

  @Test
  void aScriptWithoutResponsesIsRejected() {
    assertThatThrownBy(() -> scripted("{}"))
        .isInstanceOf(ModelException.class)
        .hasMessageContaining("\"responses\"");
  }
}
