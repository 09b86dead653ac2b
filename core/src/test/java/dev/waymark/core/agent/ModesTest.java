package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.testing.TabEvents;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tab's approval mode and model: plan mode, and changing either while the tab lives. */
class ModesTest {
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
    Files.writeString(project.resolve("notes.txt"), "hello\n");
    model = new TabSessionTest.ScriptModel();
  }

  private void start(ApprovalMode mode) {
    TestTabs.Watched watched = tabs.watched("tab1", model,
        Toolset.of(Tools.standard(ToolSettings.DEFAULTS).all()), new SessionSettings("model-a", mode, true, "base prompt"));
    session = watched.session();
    events = watched.events();
  }

  @AfterEach
  void close() {
    tabs.close();
  }

  @Test
  void planModeRunsReadingToolsRefusesTheOthersAndAsksForAPlanInACheckpoint() throws Exception {
    start(ApprovalMode.PLAN);
    model.respond(r -> call("read_file", "{\"path\":\"notes.txt\"}"));
    model.respond(r -> call("write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}"));
    model.respond(r -> call("run_shell", "{\"command\":\"touch shell.txt\"}"));
    model.respond(r -> text("1. Change notes.txt"));
    session.submit(new Command.SendPrompt("plan it"));
    Event.TurnFinished finished = events.await(Event.TurnFinished.class, e -> true);

    assertThat(finished.status()).isEqualTo(TurnStatus.DONE);
    assertThat(events).noneMatch(e -> e instanceof Event.ToolCallProposed p && p.needsApproval());
    assertThat(project.resolve("new.txt")).doesNotExist();
    assertThat(project.resolve("shell.txt")).doesNotExist();
    List<ChatMessage.ToolResult> results = model.requests.get(3).messages().stream()
        .filter(m -> m instanceof ChatMessage.ToolResult).map(m -> (ChatMessage.ToolResult) m).toList();
    assertThat(results.get(0).isError()).isFalse();
    assertThat(results.get(0).content()).contains("hello");
    assertThat(results.get(1).isError()).isTrue();
    assertThat(results.get(1).content()).contains("plan mode", "read_file");
    assertThat(results.get(2).isError()).isTrue();
    ChatMessage.System system = (ChatMessage.System) model.requests.get(0).messages().get(0);
    assertThat(system.text()).startsWith("base prompt").contains("# Plan mode", "numbered plan", "run_shell", "read-only");
    assertThat(events).anyMatch(e -> e instanceof Event.CheckpointCreated c && c.checkpoint().number() == 1);
  }

  @Test
  void leavingPlanModeDropsThePlanPromptAndLetsEditsRun() throws Exception {
    start(ApprovalMode.PLAN);
    session.submit(new Command.SetMode("auto-edit"));
    model.respond(r -> call("write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("Carry out the plan."));
    events.await(Event.TurnFinished.class, e -> true);

    assertThat(Files.readString(project.resolve("new.txt"))).isEqualTo("x");
    assertThat(((ChatMessage.System) model.requests.get(0).messages().get(0)).text()).doesNotContain("Plan mode");
    assertThat(find(Event.SettingsChanged.class)).isEqualTo(new Event.SettingsChanged("model-a", "auto-edit"));
    assertThat(session.settings().approval()).isEqualTo(ApprovalMode.AUTO_EDIT);
  }

  @Test
  void setModelChangesTheModelOfTheNextCallAndEachCallReportsItsTokens() throws Exception {
    start(ApprovalMode.ASK);
    model.respond(r -> text("one"));
    session.submit(new Command.SendPrompt("first"));
    events.await(Event.TurnFinished.class, e -> true);
    session.submit(new Command.SetModel("model-b"));
    model.respond(r -> text("two"));
    session.submit(new Command.SendPrompt("second"));
    events.await(Event.TurnFinished.class, e -> true);

    assertThat(model.requests).extracting(r -> r.model()).containsExactly("model-a", "model-b");
    assertThat(events).filteredOn(e -> e instanceof Event.UsageReported).extracting(e -> ((Event.UsageReported) e).model())
        .containsExactly("model-a", "model-b");
    assertThat(session.settings().model()).isEqualTo("model-b");
  }

  @Test
  void aModelSetWhileATurnRunsIsTheNextTurnsAndTheRunningTurnKeepsItsOwn() throws Exception {
    start(ApprovalMode.YOLO);
    CountDownLatch switched = new CountDownLatch(1);
    model.respond(r -> {
      session.submit(new Command.SetModel("model-b")); // while the turn's first call runs
      switched.countDown();
      return call("read_file", "{\"path\":\"notes.txt\"}");
    });
    model.respond(r -> text("read it"));
    session.submit(new Command.SendPrompt("first"));
    events.await(Event.TurnFinished.class, e -> true);
    model.respond(r -> text("two"));
    session.submit(new Command.SendPrompt("second"));
    events.await(Event.TurnFinished.class, e -> true);

    assertThat(switched.getCount()).isZero();
    assertThat(model.requests).extracting(r -> r.model()).containsExactly("model-a", "model-a", "model-b");
  }

  @Test
  void aBadModeOrModelNameIsAnErrorAndChangesNothing() throws Exception {
    start(ApprovalMode.ASK);
    session.submit(new Command.SetMode("sudo"));
    session.submit(new Command.SetModel("two words"));
    session.idle().get(10, TimeUnit.SECONDS);

    assertThat(events).filteredOn(e -> e instanceof Event.Error).extracting(e -> ((Event.Error) e).message())
        .anySatisfy(m -> assertThat(m).contains("sudo", "plan, ask, auto-edit"))
        .anySatisfy(m -> assertThat(m).contains("one word"));
    assertThat(session.settings().approval()).isEqualTo(ApprovalMode.ASK);
    assertThat(session.settings().model()).isEqualTo("model-a");
  }

  @Test
  void shiftTabCyclesThroughEveryModeButYoloAndOnlyASandboxLetsCommandsRunUnasked() {
    assertThat(ApprovalMode.cycle(false)).containsExactly(ApprovalMode.PLAN, ApprovalMode.ASK, ApprovalMode.AUTO_EDIT);
    assertThat(ApprovalMode.PLAN.next(false)).isEqualTo(ApprovalMode.ASK);
    assertThat(ApprovalMode.AUTO_EDIT.next(false)).isEqualTo(ApprovalMode.PLAN);
    assertThat(ApprovalMode.YOLO.next(false)).isEqualTo(ApprovalMode.PLAN);
    assertThat(ApprovalMode.cycle(true)).doesNotContain(ApprovalMode.YOLO).startsWith(ApprovalMode.PLAN);
    assertThat(ApprovalMode.parse("Auto_Edit")).isEqualTo(ApprovalMode.AUTO_EDIT);
    assertThat(ApprovalMode.parse("plan").label()).isEqualTo("plan");
  }

  private <T extends Event> T find(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " in " + events));
  }

  private static int calls;

  private static ChatResponse text(String text) {
    return new ChatResponse(new ChatMessage.Assistant(text, List.of()), Optional.of(new ChatResponse.Usage(10, 2)), "stop");
  }

  private static ChatResponse call(String name, String arguments) {
    return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("m" + (++calls), name, arguments))),
        Optional.empty(), "tool_calls");
  }
}
