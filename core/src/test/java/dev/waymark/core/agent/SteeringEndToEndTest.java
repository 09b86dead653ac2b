package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.OpenAiChatModel;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Steering over the wire: a real OpenAI-compatible client, the real tools and a fake server that
 * records what it was sent. A message typed while a tool runs must reach the very next request of
 * the same turn, right after the tool's result, and the turn must stay one checkpoint.
 */
class SteeringEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHELL = "sleep 1 && printf 'made\\n' > made.txt";

  @TempDir Path temp;
  TestTabs tabs;
  Path project;
  ShadowStore store;
  FakeModelServer server;
  TabSession session;
  final List<Event> events = new CopyOnWriteArrayList<>();
  final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();

  @BeforeEach
  void open() throws Exception {
    tabs = new TestTabs(temp);
    project = tabs.project;
    store = tabs.store;
    server = FakeModelServer.start();
    session = tabs.open("steer",
        new OpenAiChatModel(server.url("/v1"), null, "steer-model"), Toolset.of(Tools.standard().all()),
        new SessionSettings("steer-model", ApprovalMode.YOLO, false, "base prompt"));
    session.subscribe(events::add);
    session.subscribe(queue::add);
  }

  @AfterEach
  void close() {
    tabs.close();
    server.close();
  }

  private <E extends Event> E await(Class<E> type) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      Event e = queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(e).as("waiting for %s; got %s", type.getSimpleName(), events).isNotNull();
      if (type.isInstance(e)) {
        return type.cast(e);
      }
    }
  }

  private static String argumentsJson(String command) {
    ObjectNode args = JSON.createObjectNode().put("command", command);
    return args.toString();
  }

  @Test
  void aSteerSentWhileAToolRunsIsTheNextRequestsLastMessageRightAfterTheToolResult() throws Exception {
    String args = argumentsJson(SHELL);
    server.enqueue(
        FakeModelServer.Reply.sse(
            FakeModelServer.openAiToolChunk(0, "call_1", "run_shell", args.substring(0, 10)),
            FakeModelServer.openAiToolChunk(0, null, null, args.substring(10)),
            FakeModelServer.openAiFinish("tool_calls"),
            FakeModelServer.OPENAI_DONE),
        FakeModelServer.openAiText("Made it, ", "and the README too."));

    session.submit(new Command.SendPrompt("make a file"));
    Event.ToolCallProposed proposed = await(Event.ToolCallProposed.class);
    assertThat(proposed.call().name()).isEqualTo("run_shell");
    session.submit(new Command.Steer("also add a README"));
    Event.TurnFinished finished = await(Event.TurnFinished.class);

    assertThat(finished.status()).isEqualTo(TurnStatus.DONE);
    Event.ToolCallFinished toolFinished = find(Event.ToolCallFinished.class);
    assertThat(toolFinished.isError()).as(toolFinished.result()).isFalse();

    List<FakeModelServer.Request> requests = server.requests();
    assertThat(requests).hasSize(2);
    JsonNode messages = requests.get(1).json().get("messages");
    assertThat(messages).hasSize(5);
    assertThat(messages.get(0).get("role").asText()).isEqualTo("system");
    assertThat(messages.get(0).get("content").asText()).startsWith("base prompt\n\n# Where you work");
    assertThat(messages.get(1).toString()).isEqualTo("{\"role\":\"user\",\"content\":\"make a file\"}");
    assertThat(messages.get(2).toString()).isEqualTo(
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
            + "\"function\":{\"name\":\"run_shell\",\"arguments\":" + JSON.writeValueAsString(args) + "}}]}");
    assertThat(messages.get(3).toString()).isEqualTo(
        "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":"
            + JSON.writeValueAsString(toolFinished.result()) + "}");
    assertThat(messages.get(4).toString()).isEqualTo("{\"role\":\"user\",\"content\":\"also add a README\"}");
    // the first request went out before the steer existed
    assertThat(requests.get(0).json().get("messages")).hasSize(2);

    Event.SteeringFolded folded = find(Event.SteeringFolded.class);
    assertThat(folded.checkpoint()).isEqualTo(1);
    assertThat(folded.text()).isEqualTo("also add a README");
    assertThat(events.indexOf(find(Event.SteeringQueued.class))).isLessThan(events.indexOf(folded));
    assertThat(events.indexOf(toolFinished)).isLessThan(events.indexOf(folded));

    List<CheckpointView> created = events.stream()
        .filter(Event.CheckpointCreated.class::isInstance)
        .map(e -> ((Event.CheckpointCreated) e).checkpoint())
        .toList();
    assertThat(created).hasSize(1);
    assertThat(created.get(0).number()).isEqualTo(1);
    assertThat(created.get(0).changedPaths()).hasSize(1);
    assertThat(session.checkpoints().checkpoints()).extracting(Checkpoint::number).containsExactly(0, 1);
    assertThat(events).noneMatch(e -> e instanceof Event.TurnStarted started && started.checkpoint() != 1);
    assertThat(events).noneMatch(Event.Warning.class::isInstance);
    assertThat(Files.readString(project.resolve("made.txt"), StandardCharsets.UTF_8)).isEqualTo("made\n");
  }

  private <E extends Event> E find(Class<E> type) {
    return events.stream().filter(type::isInstance).map(type::cast).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " in " + events));
  }
}
