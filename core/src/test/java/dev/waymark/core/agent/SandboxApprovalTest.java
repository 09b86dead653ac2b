package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.testing.TabEvents;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolKind;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Which shell commands the approval modes let run unasked, with and without a sandbox. */
@Tag("process")
class SandboxApprovalTest {
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
  }

  @AfterEach
  void close() {
    tabs.close();
  }

  private SandboxPolicy policy() {
    return SandboxPolicy.protecting(tabs.home, temp.resolve("config"));
  }

  private void start(ApprovalMode mode, boolean interactive, ShellSandbox sandbox) {
    TestTabs.Watched watched = tabs.watched("tab1", model,
        Toolset.of(Tools.standard(ToolSettings.DEFAULTS.withSandbox(sandbox)).all()),
        new SessionSettings("test-model", mode, interactive, "base prompt"));
    session = watched.session();
    events = watched.events();
  }

  @Test
  void theModesOrderAndAutoLetsOnlySandboxedCommandsRun() {
    assertThat(ApprovalMode.parse("auto")).isEqualTo(ApprovalMode.AUTO);
    assertThat(ApprovalMode.AUTO.compareTo(ApprovalMode.AUTO_EDIT)).isPositive();
    assertThat(ApprovalMode.AUTO.compareTo(ApprovalMode.YOLO)).isNegative();
    assertThat(ApprovalMode.AUTO.needsApproval(ToolKind.EDIT)).isFalse();
    assertThat(ApprovalMode.AUTO.needsApproval(ToolKind.SANDBOXED_SHELL)).isFalse();
    assertThat(ApprovalMode.AUTO.needsApproval(ToolKind.SHELL)).isTrue();
    assertThat(ApprovalMode.AUTO_EDIT.needsApproval(ToolKind.SANDBOXED_SHELL)).isTrue();
    assertThat(ApprovalMode.ASK.needsApproval(ToolKind.SANDBOXED_SHELL)).isTrue();
  }

  @Test
  void inAutoASandboxedCommandRunsUnasked() throws Exception {
    start(ApprovalMode.AUTO, true, Bwrap.required(policy()));
    model.respond(r -> call("{\"command\":\"echo made > made.txt\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("make it"));
    Event.ToolCallProposed proposed = events.await(Event.ToolCallProposed.class);
    assertThat(proposed.needsApproval()).isFalse();
    events.await(Event.TurnFinished.class);
    assertThat(project.resolve("made.txt")).hasContent("made");
  }

  @Test
  void whatABackgroundJobWritesReachesTheProjectAsItEndsWhileTheTabIsIdleAndIsSaidInTheChat() throws Exception {
    start(ApprovalMode.AUTO, true, Bwrap.required(policy()));
    model.respond(r -> call("{\"command\":\"(sleep 1; echo late > late.txt) > /dev/null 2>&1 &\"}"));
    model.respond(r -> text("started"));
    session.submit(new Command.SendPrompt("start it"));
    events.await(Event.TurnFinished.class);
    assertThat(project.resolve("late.txt")).as("still in the command's layer").doesNotExist();

    Event.Warning said = events.await(Event.Warning.class);

    assertThat(said.message()).contains("Background processes of a shell command ended", "recorded in #1",
        "created late.txt");
    assertThat(project.resolve("late.txt")).hasContent("late");
    assertThat(session.snapshot().checkpoint(1).orElseThrow().changes()).extracting(c -> c.path()).contains("late.txt");
  }

  @Test
  void inAutoWithoutASandboxCommandsAreAskedAboutAsInAutoEdit() throws Exception {
    ShellSandbox none = ShellSandbox.detect(policy(), "/nonexistent-bin");
    start(ApprovalMode.AUTO, false, none);
    model.respond(r -> call("{\"command\":\"echo made > made.txt\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("make it"));
    assertThat(events.await(Event.ToolCallProposed.class).needsApproval()).isTrue();
    events.await(Event.TurnFinished.class);
    assertThat(project.resolve("made.txt")).doesNotExist();
  }

  @ParameterizedTest
  @EnumSource(value = ApprovalMode.class, names = "PLAN", mode = EnumSource.Mode.EXCLUDE) // plan runs no command at all
  void aCommandOutsideTheSandboxIsAskedAboutInEveryModeYoloIncluded(ApprovalMode mode) throws Exception {
    start(mode, true, Bwrap.required(policy()));
    model.respond(r -> call("{\"command\":\"echo out > out.txt\",\"sandbox\":false}"));
    model.respond(r -> call("{\"command\":\"echo again > again.txt\",\"sandbox\":false}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("leave it"));
    Event.ToolCallProposed first = events.await(Event.ToolCallProposed.class);
    assertThat(first.needsApproval()).isTrue();
    assertThat(first.summary()).contains("echo out > out.txt").contains("outside the sandbox");
    session.submit(new Command.Approve(first.call().id(), true)); // "for the session" does not cover the next
    Event.ToolCallProposed second = events.await(Event.ToolCallProposed.class);
    assertThat(second.needsApproval()).isTrue();
    session.submit(new Command.Deny(second.call().id(), ""));
    events.await(Event.TurnFinished.class);
    assertThat(project.resolve("out.txt")).hasContent("out");
    assertThat(project.resolve("again.txt")).doesNotExist();
  }

  @Test
  void planModeRunsASandboxedCommandUnaskedOnAReadOnlyProjectAndRefusesOneThatLeavesTheSandbox() throws Exception {
    Files.writeString(project.resolve("notes.txt"), "the notes\n");
    start(ApprovalMode.PLAN, true, Bwrap.required(policy()));
    model.respond(r -> call("{\"command\":\"cat notes.txt; echo in > in.txt; rm notes.txt\"}"));
    model.respond(r -> call("{\"command\":\"echo out > out.txt\",\"sandbox\":false}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("look around"));
    events.await(Event.TurnFinished.class);

    assertThat(events.stream().filter(Event.ToolCallProposed.class::isInstance)
        .map(e -> ((Event.ToolCallProposed) e).needsApproval())).as("a look around is not asked about").containsOnly(false);
    List<Event.ToolCallFinished> results = events.stream().filter(Event.ToolCallFinished.class::isInstance)
        .map(Event.ToolCallFinished.class::cast).toList();
    assertThat(results.get(0).result()).contains("the notes", "Read-only file system", "plan mode: the project is read-only")
        .doesNotContain("\"sandbox\": false");
    assertThat(results.get(0).changedPaths()).isEmpty();
    assertThat(results.get(1).isError()).isTrue();
    assertThat(results.get(1).result()).contains("Not run", "plan mode", "outside the sandbox");
    assertThat(project.resolve("in.txt")).doesNotExist();
    assertThat(project.resolve("out.txt")).doesNotExist();
    assertThat(project.resolve("notes.txt")).hasContent("the notes");
    assertThat(session.snapshot().checkpoint(1).orElseThrow().changes()).as("nothing to record").isEmpty();
  }

  @Test
  void planModeWithoutASandboxRefusesShellCommandsSayingWhy() throws Exception {
    start(ApprovalMode.PLAN, true, ShellSandbox.detect(policy(), "/nonexistent-bin"));
    model.respond(r -> call("{\"command\":\"echo in > in.txt\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("look around"));
    events.await(Event.TurnFinished.class);
    Event.ToolCallFinished result = events.stream().filter(Event.ToolCallFinished.class::isInstance)
        .map(Event.ToolCallFinished.class::cast).findFirst().orElseThrow();
    assertThat(result.isError()).isTrue();
    assertThat(result.result()).contains("Not run", "plan mode", "no sandbox");
    assertThat(project.resolve("in.txt")).doesNotExist();
  }

  @Test
  void withNobodyToAskACommandOutsideTheSandboxIsDeniedEvenInYolo() throws Exception {
    start(ApprovalMode.YOLO, false, Bwrap.required(policy()));
    model.respond(r -> call("{\"command\":\"echo out > out.txt\",\"sandbox\":false}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("leave it"));
    events.await(Event.TurnFinished.class);
    assertThat(events.stream().filter(Event.Warning.class::isInstance).map(e -> ((Event.Warning) e).message()))
        .anySatisfy(m -> assertThat(m).contains("outside the sandbox only with the user's approval"));
    assertThat(project.resolve("out.txt")).doesNotExist();
  }

  private static ChatResponse text(String text) {
    return new ChatResponse(new ChatMessage.Assistant(text, List.of()), Optional.of(new ChatResponse.Usage(10, 2)), "stop");
  }

  private static int calls;

  private static ChatResponse call(String arguments) {
    return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("sb" + (++calls), "run_shell", arguments))),
        Optional.empty(), "tool_calls");
  }
}
