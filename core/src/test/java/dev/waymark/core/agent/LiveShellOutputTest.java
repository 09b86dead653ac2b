package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.testing.TabEvents;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A running command's output reaches the front ends as it comes, throttled, before the call's result. */
@Tag("process")
class LiveShellOutputTest {
  @TempDir Path temp;
  TestTabs tabs;
  Path project;
  TabSessionTest.ScriptModel model;
  TabSession session;
  TabEvents events;

  @BeforeEach
  void open() throws Exception {
    tabs = new TestTabs(temp);
    project = tabs.project;
    model = new TabSessionTest.ScriptModel();
    TestTabs.Watched watched = tabs.watchedWithStandardTools(model, ApprovalMode.YOLO);
    session = watched.session();
    events = watched.events();
  }

  @AfterEach
  void close() {
    tabs.close();
  }

  @Test
  void whatACommandPrintsIsToldWhileItRunsAndTheCallEndsAfterIt() throws Exception {
    Path go = temp.resolve("go");
    model.respond(r -> call("{\"command\":\"echo compiling; while [ ! -e '" + go + "' ]; do sleep 0.05; done; "
        + "echo testing\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("build it"));

    Event.ToolOutput first = events.await(Event.ToolOutput.class);
    assertThat(first.text()).isEqualTo("compiling\n");
    assertThat(first.id()).isEqualTo(callId);
    assertThat(events).as("the command still runs").noneMatch(Event.ToolCallFinished.class::isInstance);
    Files.createFile(go);
    events.await(Event.TurnFinished.class);

    List<Event> fromTheCall = events.stream().filter(e -> e instanceof Event.ToolOutput || e instanceof Event.ToolCallFinished)
        .toList();
    assertThat(fromTheCall.get(fromTheCall.size() - 1)).as("output before the result").isInstanceOf(Event.ToolCallFinished.class);
    assertThat(outputs()).isEqualTo("compiling\ntesting\n");
  }

  @Test
  void aFloodOfOutputComesInAFewUpdatesWithNothingLostInOrder() throws Exception {
    model.respond(r -> call("{\"command\":\"seq 1 20000\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("count"));
    events.await(Event.TurnFinished.class);

    assertThat(outputs()).isEqualTo(IntStream.rangeClosed(1, 20000).mapToObj(i -> i + "\n")
        .collect(Collectors.joining()));
    long updates = events.stream().filter(Event.ToolOutput.class::isInstance).count();
    assertThat(updates).as("one update per frame, not one per read").isLessThan(20);
  }

  private String outputs() {
    return events.stream().filter(Event.ToolOutput.class::isInstance).map(e -> ((Event.ToolOutput) e).text())
        .collect(Collectors.joining());
  }

  private static ChatResponse text(String text) {
    return new ChatResponse(new ChatMessage.Assistant(text, List.of()), Optional.of(new ChatResponse.Usage(10, 2)), "stop");
  }

  private String callId;

  private ChatResponse call(String arguments) {
    callId = "live" + System.nanoTime();
    return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall(callId, "run_shell", arguments))),
        Optional.empty(), "tool_calls");
  }
}
