package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.context.Mentions;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ChatRequest;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.model.StreamListener;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolKind;
import dev.waymark.core.tool.ToolResult;
import dev.waymark.core.tool.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent loop over the command/event protocol, with a scripted model and a write tool. */
class TabSessionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Path project;
  ShadowStore store;
  ScriptModel model;
  TabSession session;
  final List<Event> events = new CopyOnWriteArrayList<>();
  final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();

  @BeforeEach
  void open() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    model = new ScriptModel();
  }

  private void start(ApprovalMode approval, boolean interactive) {
    start(approval, interactive, List.of(new WriteTool()));
  }

  private void start(ApprovalMode approval, boolean interactive, List<Tool> tools) {
    session = TabSession.of(store.openTab("tab1"), store.projectDirectory(), model,
        Toolset.of(tools), new SessionSettings("test-model", approval, interactive, "base prompt"));
    session.subscribe(events::add);
    session.subscribe(queue::add);
  }

  @AfterEach
  void close() {
    if (session != null) {
      session.close();
    }
    store.close();
  }

  /** What another process is told when it opens {@code tab} of this project now. */
  private String openInAnotherProcess(String tab) throws Exception {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        OpenTabInAnotherProcess.class.getName(), project.toString(), temp.resolve("home").toString(), tab)
        .redirectErrorStream(true).start();
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out.lines().filter(l -> l.startsWith("opened") || l.contains("in use")).findFirst().orElse(out);
  }

  @Tag("process")
  @Test
  void closingATabsSessionLetsAnotherProcessOpenTheTab() throws Exception {
    start(ApprovalMode.YOLO, false);
    assertThat(openInAnotherProcess("tab1")).contains("Tab tab1 is in use by process " + ProcessHandle.current().pid());

    session.close();

    assertThat(openInAnotherProcess("tab1")).isEqualTo("opened tab1");
    assertThatThrownBy(() -> session.checkpoints().undo()).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tab1 was closed");
    // the store stays open, and the tab can be opened here again
    session = TabSession.of(store.openTab("tab1"), store.projectDirectory(), model,
        Toolset.of(List.of(new WriteTool())), new SessionSettings("test-model", ApprovalMode.YOLO, false, "base prompt"));
    assertThat(openInAnotherProcess("tab1")).contains("in use by process");
  }

  @Test
  void aTurnStreamsRunsToolsAndEndsInACheckpointWithTheFilesItChanged() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"hello\\n\"}"));
    model.respond(r -> text("Wrote a.txt."));

    session.submit(new Command.SendPrompt("create a.txt"));
    Event.TurnFinished finished = await(Event.TurnFinished.class, e -> true);

    assertThat(finished.status()).isEqualTo(TurnStatus.DONE);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("hello\n");
    assertThat(events).extracting(e -> e.getClass().getSimpleName()).containsSubsequence(
        "TurnStarted", "ToolCallProposed", "ToolCallFinished", "AssistantDelta", "CheckpointCreated", "TurnFinished");
    Event.CheckpointCreated created = find(Event.CheckpointCreated.class);
    assertThat(created.checkpoint().tag()).contains("refs/tags/waymark/tab1/1");
    assertThat(model.requests.get(1).messages()).extracting(m -> m.getClass().getSimpleName())
        .containsExactly("System", "User", "Assistant", "ToolResult");
    assertThat(model.requests.get(0).tools()).extracting(ToolSpec::name).containsExactly("write");
  }

  @Test
  void aCallWhoseArgumentsAreTwoJsonObjectsIsAnsweredAsAnErrorAndNothingRuns() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"a\"}{\"path\":\"b.txt\",\"content\":\"b\"}"));
    model.respond(r -> text("ok"));

    session.submit(new Command.SendPrompt("write two files"));
    await(Event.TurnFinished.class, e -> true);

    Event.ToolCallFinished finished = find(Event.ToolCallFinished.class);
    assertThat(finished.isError()).isTrue();
    assertThat(finished.result()).contains("not exactly one JSON object");
    assertThat(project.resolve("a.txt")).doesNotExist();
    assertThat(project.resolve("b.txt")).doesNotExist();
  }

  @Test
  void aConversationTheServerRefusesSaysHowToGetOutAndUndoingTheTurnRecovers() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("first answer"));
    session.submit(new Command.SendPrompt("first"));
    await(Event.TurnFinished.class, e -> true);
    model.respond(r -> {
      throw new ModelException(ModelException.Kind.BAD_REQUEST, "the server rejected the request (HTTP 400: bad history)");
    });
    session.submit(new Command.SendPrompt("second"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    assertThat(find(Event.Error.class).message()).contains("HTTP 400", "/checkpoint undo");
    assertThat(find(Event.Error.class).kind()).isEqualTo(ErrorKind.MODEL_FAILED);

    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> true);
    model.respond(r -> text("fine"));
    session.submit(new Command.SendPrompt("third"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 3);

    assertThat(model.requests.get(2).messages()).filteredOn(ChatMessage.User.class::isInstance)
        .extracting(m -> ((ChatMessage.User) m).text()).containsExactly("first", "third");
  }

  @Test
  void aRetryWaitIsToldToTheFrontEnds() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.retryFirst = new StreamListener.Retry("rate limited", Duration.ofSeconds(12), 2, 3);
    model.respond(r -> text("ok"));

    session.submit(new Command.SendPrompt("go"));
    await(Event.TurnFinished.class, e -> true);

    assertThat(find(Event.Waiting.class)).isEqualTo(new Event.Waiting(1, "rate limited, retrying in 12 s (2/3)"));
  }

  @Test
  void compactSummarisesTheConversationIntoOneCheckpointThatLaterTurnsSendInsteadAndUndoBringsBack() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"" + "x".repeat(5000) + "\"}"));
    model.respond(r -> text("Wrote a.txt."));
    session.submit(new Command.SendPrompt("write a.txt"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);

    model.respond(r -> text("The user had a.txt written with 5000 x."));
    session.submit(new Command.Compact());
    Event.TurnFinished compacted = await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    assertThat(compacted.status()).isEqualTo(TurnStatus.DONE);
    ChatRequest summaryRequest = model.requests.get(2);
    assertThat(summaryRequest.tools()).isEmpty();
    assertThat(summaryRequest.messages().get(summaryRequest.messages().size() - 1))
        .isEqualTo(new ChatMessage.User(Compaction.REQUEST));

    model.respond(r -> text("next"));
    session.submit(new Command.SendPrompt("now b.txt"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 3);
    List<ChatMessage> after = model.requests.get(3).messages();
    assertThat(after).hasSize(2);
    assertThat(((ChatMessage.System) after.get(0)).text())
        .startsWith("base prompt").contains(Compaction.HEADING + "The user had a.txt written with 5000 x.");
    assertThat(after.get(1)).isEqualTo(new ChatMessage.User("now b.txt"));

    session.submit(Command.Undo.to(1));
    await(Event.CheckpointRestored.class, e -> true);
    model.respond(r -> text("again"));
    session.submit(new Command.SendPrompt("once more"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 4);
    assertThat(model.requests.get(4).messages()).extracting(m -> m.getClass().getSimpleName())
        .containsExactly("System", "User", "Assistant", "ToolResult", "Assistant", "User");
    assertThat(Files.readString(project.resolve("a.txt"))).hasSize(5000);
  }

  @Test
  void aConversationTooLongForTheModelOffersCompactAndUndo() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> {
      throw new ModelException(ModelException.Kind.CONTEXT_TOO_LONG, "the server says the conversation is too long");
    });
    session.submit(new Command.SendPrompt("go"));
    await(Event.TurnFinished.class, e -> true);

    assertThat(find(Event.Error.class).message()).contains("too long", "/compact", "/checkpoint undo");
    assertThat(find(Event.Error.class).kind()).isEqualTo(ErrorKind.CONTEXT_TOO_LONG);
  }

  @Test
  void undoTakesTheTurnOutOfTheNextRequestAndRedoPutsItBack() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("first answer"));
    session.submit(new Command.SendPrompt("first"));
    await(Event.TurnFinished.class, e -> true);

    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> true);
    model.respond(r -> text("second answer"));
    session.submit(new Command.SendPrompt("second"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    assertThat(userTexts(model.requests.get(1))).containsExactly("second");

    session.submit(new Command.GoTo(1));
    await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(session.conversation()).extracting(Object::toString).anyMatch(s -> s.contains("first answer"))
        .noneMatch(s -> s.contains("second"));
  }

  @Test
  void aSteerDuringAToolCallReachesTheNextModelCallOfTheSameTurn() throws Exception {
    start(ApprovalMode.YOLO, false);
    CountDownLatch toolRunning = new CountDownLatch(1);
    CountDownLatch steered = new CountDownLatch(1);
    WriteTool.beforeWrite = () -> {
      toolRunning.countDown();
      awaitLatch(steered);
    };
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"x\"}"));
    model.respond(r -> text("done"));

    session.submit(new Command.SendPrompt("go"));
    awaitLatch(toolRunning);
    session.submit(new Command.Steer("also add a README"));
    await(Event.SteeringQueued.class, e -> true);
    steered.countDown();
    await(Event.TurnFinished.class, e -> true);

    List<ChatMessage> second = model.requests.get(1).messages();
    assertThat(second.get(second.size() - 1)).isEqualTo(new ChatMessage.User("also add a README"));
    assertThat(second.get(second.size() - 2)).isInstanceOf(ChatMessage.ToolResult.class);
    assertThat(find(Event.SteeringFolded.class).checkpoint()).isEqualTo(1);
    assertThat(session.checkpoints().checkpoints()).hasSize(2);
  }

  @Test
  void aSteerDuringTheFinalModelCallIsSentToTheModelBeforeTheTurnEnds() throws Exception {
    start(ApprovalMode.YOLO, false);
    CountDownLatch calling = new CountDownLatch(1);
    CountDownLatch steered = new CountDownLatch(1);
    model.respond(r -> {
      calling.countDown();
      awaitLatch(steered);
      return text("answer");
    });
    model.respond(r -> text("answer to the steer"));

    session.submit(new Command.SendPrompt("go"));
    awaitLatch(calling);
    session.submit(new Command.Steer("and explain it"));
    await(Event.SteeringQueued.class, e -> true);
    steered.countDown();
    await(Event.TurnFinished.class, e -> true);

    assertThat(model.requests).hasSize(2);
    assertThat(userTexts(model.requests.get(1))).containsExactly("go", "and explain it");
    assertThat(session.checkpoints().checkpoints()).hasSize(2);
  }

  @Test
  void aSteerWithNoTurnRunningBecomesAPrompt() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("ok"));
    session.submit(new Command.Steer("hello"));
    await(Event.TurnFinished.class, e -> true);
    assertThat(userTexts(model.requests.get(0))).containsExactly("hello");
    assertThat(find(Event.Warning.class).message()).contains("sent as a new prompt");
  }

  @Test
  void cancelStopsTheTurnAndKeepsWhatItChangedUndoable() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"partial\"}"));
    model.respond(r -> {
      CountDownLatch cancelled = new CountDownLatch(1);
      r.cancellation.onCancel(cancelled::countDown);
      if (!r.cancellation.isCancelled()) {
        awaitLatch(cancelled); // the Cancel the test submits
      }
      throw new ModelException(ModelException.Kind.CANCELLED, "cancelled");
    });
    session.submit(new Command.SendPrompt("go"));
    await(Event.ToolCallFinished.class, e -> true);
    session.submit(new Command.Cancel());
    Event.TurnFinished finished = await(Event.TurnFinished.class, e -> true);

    assertThat(finished.status()).isEqualTo(TurnStatus.CANCELLED);
    assertThat(session.checkpoints().checkpoint(1).changes()).hasSize(1);
    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> true);
    assertThat(Files.exists(project.resolve("a.txt"))).isFalse();
  }

  @Test
  void inAskModeAnEditWaitsForApprovalAndADenialIsToldToTheModel() throws Exception {
    start(ApprovalMode.ASK, true);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"x\"}"));
    model.respond(r -> call("write", "{\"path\":\"b.txt\",\"content\":\"y\"}"));
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("go"));

    Event.ToolCallProposed first = await(Event.ToolCallProposed.class, e -> true);
    assertThat(first.needsApproval()).isTrue();
    assertThat(first.summary()).isEqualTo("a.txt");
    assertThat(Files.exists(project.resolve("a.txt"))).isFalse();
    session.submit(new Command.Deny(first.call().id(), "not that file"));
    Event.ToolCallProposed second = await(Event.ToolCallProposed.class, e -> e.call().argumentsJson().contains("b.txt"));
    session.submit(new Command.Approve(second.call().id(), false));
    await(Event.TurnFinished.class, e -> true);

    assertThat(Files.exists(project.resolve("a.txt"))).isFalse();
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("y");
    ChatMessage.ToolResult denied = (ChatMessage.ToolResult) model.requests.get(1).messages().get(3);
    assertThat(denied.isError()).isTrue();
    assertThat(denied.content()).contains("denied", "not that file");
  }

  @Test
  void withoutATerminalAskModeDeniesAndSaysHowToAllow() throws Exception {
    start(ApprovalMode.ASK, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"x\"}"));
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("go"));
    await(Event.TurnFinished.class, e -> true);

    assertThat(Files.exists(project.resolve("a.txt"))).isFalse();
    assertThat(find(Event.Warning.class).message()).contains("--approval auto-edit or yolo");
    assertThat(find(Event.ToolCallFinished.class).isError()).isTrue();
  }

  @Test
  void restoringACheckpointLeftWhileAToolCallAwaitedApprovalProposesItAgain() throws Exception {
    start(ApprovalMode.ASK, true);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"x\"}"));
    session.submit(new Command.SendPrompt("go"));
    Event.ToolCallProposed proposed = await(Event.ToolCallProposed.class, e -> true);
    session.submit(new Command.Cancel());
    await(Event.TurnFinished.class, e -> true);
    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> true);

    session.submit(new Command.GoTo(1));
    Event.CheckpointRestored back = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(back.pendingToolCall()).contains(proposed.call());
  }

  @Test
  void approvingACallProposedAgainRunsItInANewCheckpointThatContinuesTheTurn() throws Exception {
    start(ApprovalMode.ASK, true);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"x\"}"));
    session.submit(new Command.SendPrompt("go"));
    Event.ToolCallProposed proposed = await(Event.ToolCallProposed.class, e -> true);
    session.submit(new Command.Cancel());
    await(Event.TurnFinished.class, e -> true);
    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> true);
    session.submit(new Command.GoTo(1));
    Event.CheckpointRestored back = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);

    model.respond(r -> text("written"));
    session.submit(new Command.Approve(back.pendingToolCall().orElseThrow().id(), false));
    Event.TurnStarted resumed = await(Event.TurnStarted.class, e -> e.checkpoint() == 2);
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);

    assertThat(resumed.parent()).isEqualTo(1);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("x");
    assertThat(session.checkpoints().checkpoint(2).changes()).extracting(c -> c.path()).containsExactly("a.txt");
    List<ChatMessage> sent = model.requests.get(model.requests.size() - 1).messages();
    // the model sees its call once, answered once, with what it did
    assertThat(sent).extracting(m -> m.getClass().getSimpleName()).containsExactly("System", "User", "Assistant", "ToolResult");
    assertThat(sent.get(sent.size() - 1)).isInstanceOfSatisfying(ChatMessage.ToolResult.class, result -> {
      assertThat(result.isError()).isFalse();
      assertThat(result.toolCallId()).isEqualTo(proposed.call().id());
      assertThat(result.content()).isEqualTo("wrote a.txt");
    });
    session.submit(new Command.List());
    Event.CheckpointsListed listed = await(Event.CheckpointsListed.class, e -> true);
    assertThat(listed.checkpoints()).filteredOn(c -> c.number() == 2).singleElement()
        .satisfies(c -> assertThat(c.prompt()).isEqualTo("(approved write)"));
  }

  @Test
  void aPromptSentWhileViewingAnEarlierCheckpointBranchesFromIt() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"one\"}"));
    model.respond(r -> text("first"));
    session.submit(new Command.SendPrompt("write one"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"two\"}"));
    model.respond(r -> text("second"));
    session.submit(new Command.SendPrompt("write two"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);

    session.submit(Command.View.back());
    Event.ViewMoved viewing = await(Event.ViewMoved.class, e -> true);
    assertThat(viewing).isEqualTo(new Event.ViewMoved(1, false));
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("two"); // browsing changes nothing

    model.respond(r -> text("branched"));
    session.submit(new Command.Branch(viewing.checkpoint(), "another way"));
    Event.TurnStarted started = await(Event.TurnStarted.class, e -> e.checkpoint() == 3);
    await(Event.TurnFinished.class, e -> e.checkpoint() == 3);

    assertThat(started.parent()).isEqualTo(1);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("one");
    assertThat(userTexts(model.requests.get(model.requests.size() - 1))).containsExactly("write one", "another way");
    assertThat(session.snapshot().view()).isEqualTo(new CheckpointTree.ViewPosition(3, true));
  }

  @Test
  void enterFollowedAtOnceByCtrlBNeverBranchesFromTheWrongCheckpoint() throws Exception {
    start(ApprovalMode.YOLO, false);
    CountDownLatch firstAnswering = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    model.respond(r -> {
      firstAnswering.countDown();
      awaitLatch(release);
      return text("first");
    });
    session.submit(new Command.SendPrompt("one"));
    awaitLatch(firstAnswering);

    // Enter on live queues a prompt behind the running turn; Ctrl+B at once moves the view back
    session.submit(new Command.SendPrompt("two"));
    session.submit(Command.View.back());
    assertThat(await(Event.ViewMoved.class, e -> true)).isEqualTo(new Event.ViewMoved(0, false));
    model.respond(r -> text("second"));
    release.countDown();
    Event.TurnStarted second = await(Event.TurnStarted.class, e -> e.checkpoint() == 2);
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    assertThat(second.parent()).as("the prompt was sent on live, so it continues live").isEqualTo(1);

    // Enter while viewing #1 sends Branch(1); Ctrl+B right after cannot move where it branches from
    session.submit(Command.View.at(1));
    await(Event.ViewMoved.class, e -> e.checkpoint() == 1);
    model.respond(r -> text("third"));
    session.submit(new Command.Branch(1, "three"));
    session.submit(Command.View.back());
    Event.TurnStarted third = await(Event.TurnStarted.class, e -> e.checkpoint() == 3);
    assertThat(third.parent()).isEqualTo(1);
    await(Event.TurnFinished.class, e -> e.checkpoint() == 3);
    assertThat(userTexts(model.requests.get(model.requests.size() - 1))).containsExactly("one", "three");
  }

  @Test
  void browsingAndReadingTheTabNeverWaitOnTheTreeWhileItWrites() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("a"));
    session.submit(new Command.SendPrompt("one"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    session.idle().get(10, TimeUnit.SECONDS);

    CountDownLatch answered = new CountDownLatch(1);
    session.subscribe(e -> {
      if (e instanceof Event.ViewMoved) {
        answered.countDown();
      }
    });
    synchronized (session.checkpoints()) { // as a git write or gc of the tree would hold it
      session.submit(Command.View.back());
      assertThat(answered.await(10, TimeUnit.SECONDS)).as("the view moved without the tree").isTrue();
      TabSnapshot snapshot = session.snapshot();
      assertThat(snapshot.view()).isEqualTo(new CheckpointTree.ViewPosition(0, false));
      assertThat(snapshot.tree().live()).isEqualTo(1);
      assertThat(snapshot.livePath()).containsExactly(0, 1);
    }
  }

  @Test
  void anyFailureOfACommandIsAnErrorEventAndTheTabGoesOn() throws Exception {
    start(ApprovalMode.YOLO, false);
    session.submit(new Command.Restore(0, null, false)); // no scope: not a CheckpointException
    assertThat(await(Event.Error.class, e -> true).message()).isNotBlank();
    assertThat(events.stream().filter(Event.Error.class::isInstance).map(Event.Error.class::cast).reduce((a, b) -> b).orElseThrow().kind())
        .isEqualTo(ErrorKind.INTERNAL);

    model.respond(r -> text("still here"));
    session.submit(new Command.SendPrompt("hello"));
    assertThat(await(Event.TurnFinished.class, e -> true).status()).isEqualTo(TurnStatus.DONE);
  }

  @Test
  void eachCommandGetsASubmissionIdInOrderAndAnErrorNamesTheOneThatFailed() throws Exception {
    start(ApprovalMode.YOLO, false);
    long listed = session.submit(new Command.List());
    long failed = session.submit(new Command.GoTo(99, false)); // no such checkpoint
    long viewed = session.submit(Command.View.back());

    assertThat(failed).isGreaterThan(listed);
    assertThat(viewed).isGreaterThan(failed);
    Event.Error error = await(Event.Error.class, e -> true);
    assertThat(error.kind()).isEqualTo(ErrorKind.NOT_FOUND);
    assertThat(error.submission()).hasValue(failed);
    assertThat(error.message()).contains("99");
  }

  @Test
  void everyCommandHasAHandler() {
    // the dispatch is a visitor: a command without a method in Command.Handler does not compile
    for (Class<?> type : Command.class.getPermittedSubclasses()) {
      assertThat(Arrays.stream(Command.Handler.class.getMethods())
          .anyMatch(m -> m.getParameterCount() == 1 && m.getParameterTypes()[0] == type))
          .as("Command.Handler handles " + type.getSimpleName()).isTrue();
    }
  }

  @Test
  void undoingAPromptThatCameWithAnMcpResourceBringsBackWhatWasTypedNotTheResource() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("a"));
    String typed = "explain @docs:docs://a.md";
    session.submit(new Command.SendPrompt(typed + Mentions.ATTACHED
        + "\n\n--- @docs:docs://a.md ---\nthe resource\n--- end of @docs:docs://a.md ---"));
    await(Event.TurnFinished.class, e -> true);
    session.submit(Command.Undo.one());
    Event.CheckpointRestored undone = await(Event.CheckpointRestored.class, e -> e.result().target() == 0);
    assertThat(undone.draft()).isEqualTo(typed); // sent again, it reads the resource again
  }

  @Test
  void aRestoreBringsBackTheDraftThatWasInTheInputBoxWhenItsCheckpointWasLeft() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("a"));
    session.submit(new Command.SendPrompt("first prompt"));
    await(Event.TurnFinished.class, e -> true);

    session.submit(new Command.KeepDraft("half-typed idea"));
    session.submit(Command.Undo.one());
    Event.CheckpointRestored undone = await(Event.CheckpointRestored.class, e -> e.result().target() == 0);
    assertThat(undone.draft()).isEqualTo("first prompt"); // what was typed when #0 was left
    session.submit(new Command.Redo());
    Event.CheckpointRestored redone = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(redone.draft()).isEqualTo("half-typed idea");
  }

  @Test
  void undoingATurnThatBranchedFromAViewedCheckpointBringsBackThatTurnsPrompt() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("a"));
    session.submit(new Command.SendPrompt("one"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    model.respond(r -> text("b"));
    session.submit(new Command.SendPrompt("two"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    session.submit(Command.View.back());
    await(Event.ViewMoved.class, e -> e.checkpoint() == 1);
    model.respond(r -> text("c"));
    session.submit(new Command.Branch(1, "three"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 3);

    session.submit(Command.Undo.one());
    Event.CheckpointRestored undone = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(undone.draft()).as("the prompt just undone, not the one that once left #1").isEqualTo("three");
  }

  @Test
  void undoingARestoreARevertOrACompactionBringsBackNoLabelAsIfTheUserTypedIt() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"one\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("write a"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);

    session.submit(new Command.Revert(1, 1, List.of(), false));
    await(Event.CheckpointRestored.class, e -> e.result().applied());
    session.submit(Command.Undo.one());
    Event.CheckpointRestored undoneRevert = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(undoneRevert.draft()).as("revert #1 is no prompt of the user's").isEmpty();

    session.submit(new Command.Restore(0, RestoreScope.FILES, false));
    await(Event.CheckpointRestored.class, e -> e.result().applied() && e.result().target() == 0);
    session.submit(Command.Undo.one());
    Event.CheckpointRestored undoneRestore = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(undoneRestore.draft()).as("restore files of #0 is no prompt of the user's").isEmpty();

    model.respond(r -> text("THE SUMMARY"));
    session.submit(new Command.Compact());
    await(Event.TurnFinished.class, e -> true);
    session.submit(Command.Undo.one());
    Event.CheckpointRestored undoneCompaction = await(Event.CheckpointRestored.class, e -> e.result().target() == 1);
    assertThat(undoneCompaction.draft()).isEmpty();
  }

  @Test
  void aPromptWithNoModelToAnswerItMakesNoCheckpointAndSaysSo() throws Exception {
    ChatModel none = new ChatModel() {
      @Override
      public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
        throw new ModelException(ModelException.Kind.AUTHENTICATION, "asked, though no model is configured");
      }

      @Override
      public Optional<String> unavailable() {
        return Optional.of("No model is configured.");
      }
    };
    session = TabSession.of(store.openTab("tab1"), store.projectDirectory(), none, Toolset.of(List.of(new WriteTool())),
        new SessionSettings("none", ApprovalMode.ASK, true, "base prompt"));
    session.subscribe(events::add);
    session.subscribe(queue::add);
    session.submit(new Command.SendPrompt("hello"));
    Event.Error error = await(Event.Error.class, e -> true);
    assertThat(error.kind()).isEqualTo(ErrorKind.MODEL_UNAVAILABLE);
    assertThat(error.message()).contains("No model is configured.", "not sent", "hello");
    session.idle().get(10, TimeUnit.SECONDS);
    assertThat(session.snapshot().tree().checkpoints()).as("only #0: no failed checkpoint").hasSize(1);
  }

  @Test
  void aFilesOnlyRestoreBringsBackNoDraft() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"one\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("write a"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);

    session.submit(new Command.Restore(0, RestoreScope.FILES, false));
    Event.CheckpointRestored restored = await(Event.CheckpointRestored.class, e -> true);
    assertThat(restored.result().applied()).isTrue();
    assertThat(restored.draft()).as("the conversation did not move, so neither does the input").isEmpty();
  }

  @Test
  void aRevertIsACheckpointTheModelIsToldOfInOneMessageAndUndoTakesItBack() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"one\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("write a"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    model.respond(r -> call("write", "{\"path\":\"b.txt\",\"content\":\"bee\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("write b"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);

    session.submit(new Command.Revert(1, 1, List.of(), false));
    Event.CheckpointRestored reverted = await(Event.CheckpointRestored.class, e -> true);
    assertThat(reverted.result().summary()).startsWith("Reverted #1 as #3");
    assertThat(project.resolve("a.txt")).doesNotExist();
    assertThat(project.resolve("b.txt")).exists();
    List<String> told = userTexts(new ChatRequest("m", session.conversation(), List.of()));
    assertThat(told).hasSize(3);
    assertThat(told.get(2)).contains("reverted the file changes of checkpoint #1", "a.txt").doesNotContain("b.txt");

    session.submit(new Command.List());
    Event.CheckpointsListed listed = await(Event.CheckpointsListed.class, e -> true);
    assertThat(listed.live()).isEqualTo(3);
    assertThat(listed.checkpoints().get(3).prompt()).isEqualTo("revert #1");

    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> e.result().target() == 2);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("one");
    assertThat(userTexts(new ChatRequest("m", session.conversation(), List.of()))).containsExactly("write a", "write b");
  }

  @Test
  void aConversationOnlyRestoreSendsThatCheckpointsConversationAndUndoBringsTheLaterOneBack() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"one\"}"));
    model.respond(r -> text("done one"));
    session.submit(new Command.SendPrompt("write a"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    model.respond(r -> call("write", "{\"path\":\"b.txt\",\"content\":\"bee\"}"));
    model.respond(r -> text("done two"));
    session.submit(new Command.SendPrompt("write b"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);

    session.submit(new Command.Restore(1, RestoreScope.CONVERSATION, false));
    Event.CheckpointRestored restored = await(Event.CheckpointRestored.class, e -> true);
    assertThat(restored.result().livePath()).containsExactly(0, 1, 2, 3);
    List<String> told = userTexts(new ChatRequest("m", session.conversation(), List.of()));
    assertThat(told).hasSize(2);
    assertThat(told.get(0)).isEqualTo("write a");
    assertThat(told.get(1)).contains("took the conversation back to checkpoint #1");
    assertThat(((ChatMessage.System) session.conversation().get(0)).text()).startsWith("base prompt").doesNotEndWith("\n\n");
    assertThat(session.conversation().toString()).contains("done one").doesNotContain("done two");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("bee");
    session.submit(new Command.List());
    assertThat(await(Event.CheckpointsListed.class, e -> true).checkpoints().get(3).prompt())
        .isEqualTo("restore conversation of #1");

    session.submit(Command.Undo.one());
    await(Event.CheckpointRestored.class, e -> e.result().target() == 2);
    assertThat(userTexts(new ChatRequest("m", session.conversation(), List.of()))).containsExactly("write a", "write b");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("bee");
  }

  @Test
  void aSaveNamesItsRealRefMovesByForceAndIsDeleted() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("a"));
    session.submit(new Command.SendPrompt("one"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    session.submit(new Command.Save("four"));
    Event.CheckpointSaved saved = await(Event.CheckpointSaved.class, e -> true);
    assertThat(saved.ref()).isEqualTo("refs/tags/waymark/tab1/saved/four");
    assertThat(saved.movedFrom()).isEmpty();

    session.submit(Command.Undo.one());
    session.submit(new Command.Save("four"));
    assertThat(await(Event.Error.class, e -> true).message()).contains("already has a save named four (#1)", "--force");
    assertThat(events.stream().filter(Event.Error.class::isInstance).map(Event.Error.class::cast).reduce((a, b) -> b).orElseThrow().kind())
        .isEqualTo(ErrorKind.REFUSED);
    session.submit(new Command.Save("four", true));
    Event.CheckpointSaved moved = await(Event.CheckpointSaved.class, e -> true);
    assertThat(moved.checkpoint().number()).isZero();
    assertThat(moved.movedFrom()).hasValue(1);
    session.submit(new Command.Save("four", true));
    assertThat(await(Event.CheckpointSaved.class, e -> true).movedFrom()).as("saved again where it was: nothing moved")
        .isEmpty();

    session.submit(new Command.DeleteSave("four"));
    Event.SaveDeleted deleted = await(Event.SaveDeleted.class, e -> true);
    assertThat(deleted.checkpoint()).isZero();
    assertThat(session.checkpoints().snapshot().saves()).doesNotContainKey("four");
    session.submit(new Command.GoToSaved("four", false));
    assertThat(await(Event.Error.class, e -> true).message()).contains("no save named \"four\"");
    assertThat(events.stream().filter(Event.Error.class::isInstance).map(Event.Error.class::cast).reduce((a, b) -> b).orElseThrow().kind())
        .isEqualTo(ErrorKind.NOT_FOUND);
  }

  @Test
  void aShellCommandDeniedUnderAutoEditNamesTheOneModeThatAllowsIt() throws Exception {
    start(ApprovalMode.AUTO_EDIT, false, Tools.standard().all());
    model.respond(r -> call("run_shell", "{\"command\":\"true\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("run it"));
    Event.Warning denied = await(Event.Warning.class, w -> w.message().startsWith("Denied run_shell"));
    assertThat(denied.message()).contains("Use --approval yolo to allow it.").doesNotContain("auto-edit");
  }

  @Test
  void aListSummarisesEveryCheckpointWithItsPromptAndLinesChanged() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> call("write", "{\"path\":\"a.txt\",\"content\":\"one\\ntwo\\n\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("write a file"));
    await(Event.TurnFinished.class, e -> true);
    session.submit(Command.Undo.one());
    session.submit(new Command.List());
    Event.CheckpointsListed listed = await(Event.CheckpointsListed.class, e -> true);

    assertThat(listed.live()).isZero();
    assertThat(listed.checkpoints()).hasSize(2);
    CheckpointSummary first = listed.checkpoints().get(1);
    assertThat(first.prompt()).isEqualTo("write a file");
    assertThat(first.filesChanged()).isEqualTo(1);
    assertThat(first.added()).isEqualTo(2);
    assertThat(first.removed()).isZero();
    assertThat(first.onLivePath()).isFalse();
    assertThat(listed.checkpoints().get(0).onLivePath()).isTrue();
  }

  @Test
  void viewingAnUnknownCheckpointIsAnErrorThatMovesNothing() throws Exception {
    start(ApprovalMode.YOLO, false);
    session.submit(Command.View.at(7));
    assertThat(await(Event.Error.class, e -> true).message()).contains("7");
    assertThat(events.stream().filter(Event.Error.class::isInstance).map(Event.Error.class::cast).reduce((a, b) -> b).orElseThrow().kind())
        .isEqualTo(ErrorKind.NOT_FOUND);
    session.idle().get(10, TimeUnit.SECONDS);
    assertThat(session.snapshot().view().live()).isTrue();
  }

  @Test
  void readingASecretsFileAsksEvenInYoloModeAndAllowingOnceDoesNotAllowTheNext() throws Exception {
    Files.writeString(project.resolve(".env"), "API_KEY=hunter2\n");
    Files.writeString(project.resolve("notes.txt"), "plain\n");
    start(ApprovalMode.YOLO, true, Tools.standard().all());
    model.respond(r -> call("read_file", "{\"path\":\"notes.txt\"}"));
    model.respond(r -> call("read_file", "{\"path\":\".env\"}"));
    model.respond(r -> call("read_file", "{\"path\":\".env\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("look"));

    Event.ToolCallProposed plain = await(Event.ToolCallProposed.class, e -> e.call().argumentsJson().contains("notes"));
    assertThat(plain.needsApproval()).isFalse();
    Event.ToolCallProposed secret = await(Event.ToolCallProposed.class, e -> e.call().argumentsJson().contains(".env"));
    assertThat(secret.needsApproval()).isTrue();
    assertThat(secret.summary()).contains("secrets file");
    session.submit(new Command.Approve(secret.call().id(), true));
    Event.ToolCallProposed again = await(Event.ToolCallProposed.class,
        e -> e.call().argumentsJson().contains(".env") && !e.call().id().equals(secret.call().id()));
    assertThat(again.needsApproval()).as("allow for the session does not cover secrets").isTrue();
    session.submit(new Command.Deny(again.call().id(), ""));
    await(Event.TurnFinished.class, e -> true);

    List<ChatMessage> last = model.requests.get(model.requests.size() - 1).messages();
    assertThat(last.toString()).containsOnlyOnce("hunter2");
  }

  @Test
  void withoutAnyoneToAskASecretsFileIsNeverReadEvenInYoloMode() throws Exception {
    Files.writeString(project.resolve(".env.local"), "TOKEN=s3cr3t\n");
    start(ApprovalMode.YOLO, false, Tools.standard().all());
    model.respond(r -> call("read_file", "{\"path\":\".env.local\"}"));
    model.respond(r -> call("grep", "{\"pattern\":\"TOKEN\"}"));
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("find the token"));
    await(Event.TurnFinished.class, e -> true);

    assertThat(find(Event.Warning.class).message()).contains("secrets file", "approval, in every mode");
    String sent = model.requests.stream().map(r -> r.messages().toString()).reduce("", String::concat);
    assertThat(sent).doesNotContain("s3cr3t").contains("left out 1 .env file");
  }

  @Test
  void secretsAreJudgedByTheFileAPathResolvesToSoNoSpellingOrLinkReadsThemUnasked() throws Exception {
    Files.writeString(project.resolve(".env.local"), "TOKEN=s3cr3t\n");
    Files.createDirectories(project.resolve(".env"));
    Files.writeString(project.resolve(".env/prod"), "TOKEN=deep\n");
    Files.createSymbolicLink(project.resolve("innocent.txt"), Path.of(".env.local"));
    Files.createSymbolicLink(project.resolve("settings"), Path.of(".env"));
    Files.createDirectories(project.resolve("x"));
    start(ApprovalMode.YOLO, false, Tools.standard().all());
    List<String> asked = List.of(
        "{\"path\":\"innocent.txt\"}", "{\"path\":\".env/prod\"}", "{\"path\":\"settings/prod\"}",
        "{\"path\":\"./x/../.env.local\"}", "{\"path\":\".env.local/.\"}");
    for (String arguments : asked) {
      model.respond(r -> call("read_file", arguments));
    }
    model.respond(r -> call("grep", "{\"pattern\":\"TOKEN\",\"path\":\"innocent.txt\"}"));
    model.respond(r -> call("grep", "{\"pattern\":\"TOKEN\",\"path\":\".env/.\"}"));
    model.respond(r -> call("list_files", "{\"path\":\".env/\"}"));
    model.respond(r -> call("grep", "{\"pattern\":\"TOKEN\"}"));
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("find the token"));
    await(Event.TurnFinished.class, e -> true);

    List<Event.ToolCallProposed> proposed = events.stream().filter(Event.ToolCallProposed.class::isInstance)
        .map(Event.ToolCallProposed.class::cast).toList();
    assertThat(proposed).hasSize(9);
    assertThat(proposed.subList(0, 8)).allSatisfy(p -> assertThat(p.needsApproval()).as(p.call().argumentsJson()).isTrue());
    String sent = model.requests.stream().map(r -> r.messages().toString()).reduce("", String::concat);
    assertThat(sent).doesNotContain("s3cr3t").doesNotContain("deep").contains("left out 2 .env file");
  }

  @Test
  void theAgentCannotWriteWaymarksOwnFilesUnaskedInAnyMode() throws Exception {
    Files.createDirectories(project.resolve(".waymark"));
    Files.writeString(project.resolve(".waymark/settings.json"), "{\"approval\": \"ask\"}\n");
    Files.createSymbolicLink(project.resolve("conf"), Path.of(".waymark"));
    start(ApprovalMode.YOLO, false, Tools.standard().all());
    model.respond(r -> call("write_file", "{\"path\":\".waymark/settings.json\",\"content\":\"{\\\"approval\\\": \\\"yolo\\\"}\"}"));
    model.respond(r -> call("edit_file", "{\"path\":\"conf/settings.json\",\"old_string\":\"ask\",\"new_string\":\"yolo\"}"));
    model.respond(r -> call("write_file", "{\"path\":\".WAYMARK/other.json\",\"content\":\"{}\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("make yourself at home"));
    await(Event.TurnFinished.class, e -> true);

    List<Event.ToolCallProposed> proposed = events.stream().filter(Event.ToolCallProposed.class::isInstance)
        .map(Event.ToolCallProposed.class::cast).toList();
    assertThat(proposed).hasSize(3).allSatisfy(p -> assertThat(p.needsApproval()).as(p.call().argumentsJson()).isTrue());
    assertThat(proposed.get(0).summary()).contains("Waymark's own settings");
    assertThat(find(Event.Warning.class).message()).contains("Waymark's own settings", "approval, in every mode");
    assertThat(Files.readString(project.resolve(".waymark/settings.json"))).isEqualTo("{\"approval\": \"ask\"}\n");
    assertThat(project.resolve(".WAYMARK/other.json")).doesNotExist();
  }

  @Test
  void allowingAWriteToWaymarksFilesForTheSessionStillAsksTheNextTime() throws Exception {
    start(ApprovalMode.YOLO, true, Tools.standard().all());
    model.respond(r -> call("write_file", "{\"path\":\".waymark/settings.json\",\"content\":\"{}\"}"));
    model.respond(r -> call("write_file", "{\"path\":\".waymark/settings.json\",\"content\":\"{\\\"approval\\\":\\\"yolo\\\"}\"}"));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("set up"));
    Event.ToolCallProposed first = await(Event.ToolCallProposed.class, e -> true);
    assertThat(first.needsApproval()).isTrue();
    session.submit(new Command.Approve(first.call().id(), true));
    Event.ToolCallProposed second = await(Event.ToolCallProposed.class, e -> !e.call().id().equals(first.call().id()));
    assertThat(second.needsApproval()).isTrue();
    session.submit(new Command.Deny(second.call().id(), ""));
    await(Event.TurnFinished.class, e -> true);
    assertThat(Files.readString(project.resolve(".waymark/settings.json"))).isEqualTo("{}");
  }

  private ShellTool startWithShell(ApprovalMode approval, Permissions permissions) {
    ShellTool shell = new ShellTool();
    session = TabSession.of(store.openTab("tab1"), store.projectDirectory(), model, Toolset.of(List.of(shell)),
        new SessionSettings("test-model", approval, true, "base prompt"), TabMemory.EMPTY, permissions);
    session.subscribe(events::add);
    session.subscribe(queue::add);
    return shell;
  }

  private static String command(String command) {
    return JSON.createObjectNode().put("command", command).toString();
  }

  @Test
  void allowingAShellCommandForTheSessionAllowsItsPrefixNotTheToolNorAChainedCommand() throws Exception {
    ShellTool shell = startWithShell(ApprovalMode.ASK, Permissions.none());
    model.respond(r -> call("run_shell", command("npm test")));
    model.respond(r -> call("run_shell", command("npm test -- --watch=false")));
    model.respond(r -> call("run_shell", command("npm test; rm -rf src")));
    model.respond(r -> call("run_shell", command("rm -rf src")));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("test it"));
    Event.ToolCallProposed first = await(Event.ToolCallProposed.class, e -> true);
    assertThat(first.needsApproval()).isTrue();
    session.submit(new Command.Approve(first.call().id(), true));
    Event.ToolCallProposed second = await(Event.ToolCallProposed.class, e -> true);
    assertThat(second.needsApproval()).isFalse();
    Event.ToolCallProposed chained = await(Event.ToolCallProposed.class, e -> true);
    assertThat(chained.needsApproval()).isTrue();
    session.submit(new Command.Deny(chained.call().id(), "not that"));
    Event.ToolCallProposed rm = await(Event.ToolCallProposed.class, e -> true);
    assertThat(rm.needsApproval()).isTrue();
    session.submit(new Command.Deny(rm.call().id(), ""));
    await(Event.TurnFinished.class, e -> true);

    assertThat(shell.ran).containsExactly("npm test", "npm test -- --watch=false");
    assertThat(session.permissions().entries()).extracting(Object::toString)
        .containsExactly("allow run_shell(npm test:*)  (this session)");
    assertThat(model.requests.get(3).messages().get(model.requests.get(3).messages().size() - 1))
        .isInstanceOfSatisfying(ChatMessage.ToolResult.class, r -> assertThat(r.content()).isEqualTo("The user denied this call: not that"));
  }

  @Test
  void aDenyRuleRefusesAMatchingCallInEveryModeEvenChainedAfterAnother() throws Exception {
    var permissions = new Permissions(List.of(
        new Permissions.Entry(Permissions.Scope.USER, false,
            PermissionRule.parse("run_shell")),
        new Permissions.Entry(Permissions.Scope.PROJECT, true,
            PermissionRule.parse("run_shell(rm:*)"))),
        Permissions.RuleFiles.NONE);
    ShellTool shell = startWithShell(ApprovalMode.YOLO, permissions);
    model.respond(r -> call("run_shell", command("ls && rm -rf src")));
    model.respond(r -> call("run_shell", command("ls")));
    model.respond(r -> text("done"));
    session.submit(new Command.SendPrompt("clean"));
    Event.ToolCallFinished refused = await(Event.ToolCallFinished.class, e -> true);
    await(Event.TurnFinished.class, e -> true);

    assertThat(refused.isError()).isTrue();
    assertThat(refused.result()).contains("Denied by the user's rule \"run_shell(rm:*)\"");
    assertThat(shell.ran).containsExactly("ls");
    assertThat(find(Event.Warning.class).message()).contains("run_shell(rm:*)", "project settings", "/permissions");
  }

  @Test
  void anAllowRuleLetsACallRunUnaskedInAskMode() throws Exception {
    var permissions = new Permissions(List.of(
        new Permissions.Entry(Permissions.Scope.USER, false,
            PermissionRule.parse("run_shell(git status:*)"))),
        Permissions.RuleFiles.NONE);
    ShellTool shell = startWithShell(ApprovalMode.ASK, permissions);
    model.respond(r -> call("run_shell", command("git status --short")));
    model.respond(r -> text("clean"));
    session.submit(new Command.SendPrompt("status"));
    Event.ToolCallProposed proposed = await(Event.ToolCallProposed.class, e -> true);
    await(Event.TurnFinished.class, e -> true);
    assertThat(proposed.needsApproval()).isFalse();
    assertThat(shell.ran).containsExactly("git status --short");
  }

  @Test
  void aRunawayTurnEndsAtMaxStepsPerTurnWithAClearMessage() throws Exception {
    session = TabSession.of(store.openTab("tab1"), store.projectDirectory(), model, Toolset.of(List.of(new WriteTool())),
        new SessionSettings("test-model", ApprovalMode.YOLO, false, "base prompt", 3));
    session.subscribe(events::add);
    session.subscribe(queue::add);
    for (int i = 0; i < 10; i++) {
      int n = i;
      model.respond(r -> call("write", "{\"path\":\"f" + n + ".txt\",\"content\":\"x\"}"));
    }
    session.submit(new Command.SendPrompt("loop forever"));
    Event.TurnFinished finished = await(Event.TurnFinished.class, e -> true);

    assertThat(finished.status()).isEqualTo(TurnStatus.FAILED);
    assertThat(find(Event.Error.class).message()).contains("3 tool calls", "maxStepsPerTurn");
    assertThat(find(Event.Error.class).kind()).isEqualTo(ErrorKind.STEP_LIMIT);
    assertThat(model.requests).hasSize(4);
    assertThat(project.resolve("f2.txt")).exists();
    assertThat(project.resolve("f3.txt")).doesNotExist();
    List<ChatMessage> conversation = session.conversation();
    assertThat(((ChatMessage.ToolResult) conversation.get(conversation.size() - 1)).content()).contains("Not run");
    assertThat(new SessionSettings("m", ApprovalMode.ASK, false, null).maxStepsPerTurn()).isEqualTo(200);
  }

  @Test
  void aModelErrorFailsTheTurnWithAClearMessageAndKeepsTheConversation() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> {
      throw new ModelException(ModelException.Kind.AUTHENTICATION, "The server refused the API key: set OPENAI_API_KEY.");
    });
    session.submit(new Command.SendPrompt("hello"));
    Event.TurnFinished finished = await(Event.TurnFinished.class, e -> true);

    assertThat(finished.status()).isEqualTo(TurnStatus.FAILED);
    assertThat(find(Event.Error.class).message()).contains("OPENAI_API_KEY");
    assertThat(find(Event.Error.class).kind()).isEqualTo(ErrorKind.MODEL_FAILED);
    assertThat(userTexts(new ChatRequest("m", session.conversation(), List.of()))).containsExactly("hello");
  }

  @Test
  void agentsMdGoesIntoTheSystemPrompt() throws Exception {
    Files.writeString(project.resolve("AGENTS.md"), "Always use tabs.\n");
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("hi"));
    await(Event.TurnFinished.class, e -> true);
    ChatMessage.System system = (ChatMessage.System) model.requests.get(0).messages().get(0);
    assertThat(system.text()).startsWith("base prompt").contains("AGENTS.md", "Always use tabs.");
  }

  @Test
  void theSystemPromptSaysWhereTheAgentWorksAndCarriesTheRootsClaudeMdToo() throws Exception {
    Files.writeString(project.resolve("CLAUDE.md"), "Claude rules.\n");
    start(ApprovalMode.YOLO, false);
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("hi"));
    await(Event.TurnFinished.class, e -> true);
    String system = ((ChatMessage.System) model.requests.get(0).messages().get(0)).text();
    assertThat(system).contains("# Where you work", "Working directory", project.toAbsolutePath().normalize().toString(),
        "Today's date: " + LocalDate.now(), "Git: not a git repository", "Sandbox: none",
        "# Project instructions (CLAUDE.md)", "Claude rules.");
  }

  @Test
  void aNestedAgentsMdGoesToTheModelWithTheFirstFileReadBelowItAndAgainOnlyAfterAnUndo() throws Exception {
    Files.createDirectories(project.resolve("web/ui"));
    Files.writeString(project.resolve("web/AGENTS.md"), "Use pnpm in web.\n");
    Files.writeString(project.resolve("web/ui/a.ts"), "a\n");
    Files.writeString(project.resolve("web/ui/b.ts"), "b\n");
    Files.writeString(project.resolve("top.txt"), "t\n");
    start(ApprovalMode.YOLO, false, Tools.standard().all());
    model.respond(r -> call("read_file", "{\"path\":\"top.txt\"}"));
    model.respond(r -> call("read_file", "{\"path\":\"web/ui/a.ts\"}"));
    model.respond(r -> call("read_file", "{\"path\":\"web/ui/b.ts\"}"));
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("look"));
    await(Event.TurnFinished.class, e -> true);

    List<String> results = model.requests.get(3).messages().stream().filter(m -> m instanceof ChatMessage.ToolResult)
        .map(m -> ((ChatMessage.ToolResult) m).content()).toList();
    assertThat(results).hasSize(3);
    assertThat(results.get(0)).doesNotContain("Use pnpm");
    assertThat(results.get(1)).contains("a", "# Instructions in web/AGENTS.md (for files under web/", "Use pnpm in web.");
    assertThat(results.get(2)).doesNotContain("Use pnpm");

    session.submit(new Command.Undo(OptionalInt.empty(), false));
    await(Event.CheckpointRestored.class, e -> true);
    model.respond(r -> call("read_file", "{\"path\":\"web/ui/b.ts\"}"));
    model.respond(r -> text("ok"));
    session.submit(new Command.SendPrompt("again"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    ChatMessage.ToolResult again = (ChatMessage.ToolResult) model.requests.get(5).messages().stream()
        .filter(m -> m instanceof ChatMessage.ToolResult).reduce((a, b) -> b).orElseThrow();
    assertThat(again.content()).as("the undone read took its instructions with it").contains("Use pnpm in web.");
  }

  private void startWithWindow(long window, int percent) {
    session = TabSession.of(store.openTab("tab1"), store.projectDirectory(), model, Toolset.of(List.of(new WriteTool())),
        new SessionSettings("test-model", ApprovalMode.YOLO, false, "base prompt", 50, window, percent));
    session.subscribe(events::add);
    session.subscribe(queue::add);
  }

  private static long characters(ChatMessage m) {
    if (m instanceof ChatMessage.System s) {
      return s.text().length();
    } else if (m instanceof ChatMessage.User u) {
      return u.text().length();
    }
    throw new AssertionError("a first request holds only the system prompt and the prompt: " + m);
  }

  private static ChatResponse text(String text, long in, long out) {
    return new ChatResponse(new ChatMessage.Assistant(text, List.of()), Optional.of(new ChatResponse.Usage(in, out)), "stop");
  }

  @Test
  void aCompactionWithNothingToCompactSaysSoAsNothingToDoWithoutTheServersWayOut() throws Exception {
    start(ApprovalMode.YOLO, false);
    session.submit(new Command.Compact());
    Event.Error error = await(Event.Error.class, e -> true);
    assertThat(error.kind()).isEqualTo(ErrorKind.NOTHING_TO_DO);
    assertThat(error.message()).isEqualTo("There is nothing to compact yet.");
  }

  @Test
  void withoutTokenCountsFromTheServerTheMeterUsesAnEstimateAndCompactionStillRuns() throws Exception {
    startWithWindow(1000, 85);
    // a server that reports no usage (some OpenAI-compatible ones): about four characters a token
    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("x".repeat(3600), List.of()), Optional.empty(), "stop"));
    session.submit(new Command.SendPrompt("one"));
    Event.ContextUsed used = await(Event.ContextUsed.class, e -> e.checkpoint() == 1);
    assertThat(used.estimated()).isTrue();
    // four characters a token over what was sent and answered; the system prompt names the project's
    // directory, so its length depends on where the test runs
    long sentCharacters = model.requests.get(0).messages().stream().mapToLong(TabSessionTest::characters).sum();
    assertThat(used.tokens()).isEqualTo((sentCharacters + 3600) / 4);
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);

    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("THE SUMMARY", List.of()), Optional.empty(), "stop"));
    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("answer", List.of()), Optional.empty(), "stop"));
    session.submit(new Command.SendPrompt("two"));
    assertThat(await(Event.Compacting.class, e -> true).checkpoint()).isEqualTo(2);
    assertThat(await(Event.ContextUsed.class, e -> e.checkpoint() == 2).tokens()).as("the summary's estimate, with the system prompt")
        .isLessThan(used.tokens() / 4);
    assertThat(await(Event.TurnFinished.class, e -> e.checkpoint() == 3).status()).isEqualTo(TurnStatus.DONE);
  }

  @Test
  void pastTheThresholdAPromptIsPrecededByACompactionOfItsOwnThatUndoTakesBack() throws Exception {
    startWithWindow(1000, 85);
    model.respond(r -> text("first answer", 840, 9)); // 849 tokens: under 85%
    session.submit(new Command.SendPrompt("one"));
    Event.ContextUsed used = await(Event.ContextUsed.class, e -> e.checkpoint() == 1);
    assertThat(used.tokens()).isEqualTo(849);
    assertThat(used.percent()).hasValue(84);
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);

    model.respond(r -> text("second answer", 900, 20)); // 920: over
    session.submit(new Command.SendPrompt("two"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 2);
    model.respond(r -> text("THE SUMMARY", 950, 40));
    model.respond(r -> text("third answer", 120, 5));
    session.submit(new Command.SendPrompt("three"));

    Event.Compacting compacting = await(Event.Compacting.class, e -> true);
    assertThat(compacting.checkpoint()).isEqualTo(3);
    assertThat(compacting.reason()).contains("92% of the model's 1k-token window", "undo takes it back");
    assertThat(await(Event.ContextUsed.class, e -> e.checkpoint() == 3).tokens()).as("the summary's size").isEqualTo(40);
    Event.TurnFinished third = await(Event.TurnFinished.class, e -> e.checkpoint() == 4);
    assertThat(third.status()).isEqualTo(TurnStatus.DONE);
    assertThat(userTexts(model.requests.get(2))).last().asString().contains("Summarise our conversation");
    ChatRequest after = model.requests.get(3);
    assertThat(((ChatMessage.System) after.messages().get(0)).text()).contains("THE SUMMARY");
    assertThat(userTexts(after)).containsExactly("three");

    session.submit(new Command.Undo(OptionalInt.empty(), false));
    session.submit(new Command.Undo(OptionalInt.empty(), false));
    await(Event.CheckpointRestored.class, e -> e.result().target() == 2);
    assertThat(userTexts(new ChatRequest("m", session.conversation(), List.of()))).containsExactly("one", "two");
    Event.ContextUsed estimate = await(Event.ContextUsed.class, e -> e.estimated() && e.checkpoint() == 2);
    assertThat(estimate.tokens()).isPositive();
  }

  @Test
  void whenTheServerSaysTooLongTheTurnCompactsAndSendsThePromptAgainOnceOnly() throws Exception {
    startWithWindow(0, 85);
    model.respond(r -> text("first answer", 10, 2));
    session.submit(new Command.SendPrompt("one"));
    await(Event.TurnFinished.class, e -> e.checkpoint() == 1);
    ModelException tooLong = new ModelException(ModelException.Kind.CONTEXT_TOO_LONG, "maximum context length exceeded");
    model.respond(r -> {
      throw tooLong;
    });
    model.respond(r -> text("SUMMARY OF ONE", 10, 4));
    model.respond(r -> text("answer to two", 10, 2));
    session.submit(new Command.SendPrompt("two"));

    Event.Compacting compacting = await(Event.Compacting.class, e -> true);
    assertThat(compacting.checkpoint()).isEqualTo(2);
    assertThat(compacting.reason()).contains("too long", "sent again");
    assertThat(await(Event.TurnFinished.class, e -> e.checkpoint() == 2).status()).isEqualTo(TurnStatus.DONE);
    assertThat(await(Event.TurnFinished.class, e -> e.checkpoint() == 3).status()).isEqualTo(TurnStatus.DONE);
    assertThat(userTexts(model.requests.get(2))).as("the summary request leaves the prompt out").containsExactly("one",
        Compaction.REQUEST);
    assertThat(userTexts(model.requests.get(3))).containsExactly("two");
    assertThat(events).noneMatch(e -> e instanceof Event.Error);

    // the prompt sent again after a compaction is too long all the same: an error, not another compaction
    model.respond(r -> {
      throw tooLong;
    });
    model.respond(r -> text("SUMMARY AGAIN", 10, 4));
    model.respond(r -> {
      throw tooLong;
    });
    session.submit(new Command.SendPrompt("a prompt far too long"));
    assertThat(await(Event.TurnFinished.class, e -> e.checkpoint() == 4).status()).isEqualTo(TurnStatus.DONE);
    assertThat(await(Event.TurnFinished.class, e -> e.checkpoint() == 5).status()).isEqualTo(TurnStatus.FAILED);
    assertThat(find(Event.Error.class).message()).contains("maximum context length", "/compact");
    assertThat(model.script).isEmpty();
    assertThat(model.requests).hasSize(7);
  }

  @Test
  void anUnknownToolOrBadArgumentsAreToldToTheModelAndTheTurnGoesOn() throws Exception {
    start(ApprovalMode.YOLO, false);
    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("", List.of(
        new ToolCall("c1", "nope", "{}"), new ToolCall("c2", "write", "[1,2]"))), Optional.empty(), "tool_calls"));
    model.respond(r -> text("sorry"));
    session.submit(new Command.SendPrompt("go"));
    await(Event.TurnFinished.class, e -> e.status() == TurnStatus.DONE);
    List<ChatMessage> second = model.requests.get(1).messages();
    assertThat(((ChatMessage.ToolResult) second.get(3)).content()).contains("Unknown tool \"nope\"");
    assertThat(((ChatMessage.ToolResult) second.get(4)).content()).contains("not exactly one JSON object");
  }

  // ------------------------------------------------------------------------------ helpers

  private static List<String> userTexts(ChatRequest request) {
    List<String> texts = new ArrayList<>();
    for (ChatMessage m : request.messages()) {
      if (m instanceof ChatMessage.User u) {
        texts.add(u.text());
      }
    }
    return texts;
  }

  private <T extends Event> T await(Class<T> type, Predicate<T> matching) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < end) {
      Event e = queue.poll(50, TimeUnit.MILLISECONDS);
      if (type.isInstance(e) && matching.test(type.cast(e))) {
        return type.cast(e);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " within 10 s; events: " + events);
  }

  private <T extends Event> T find(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " in " + events));
  }

  private static ChatResponse text(String text) {
    return new ChatResponse(new ChatMessage.Assistant(text, List.of()), Optional.of(new ChatResponse.Usage(10, 2)), "stop");
  }

  private static int calls;

  private static ChatResponse call(String name, String arguments) {
    return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("call" + (++calls), name, arguments))),
        Optional.empty(), "tool_calls");
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("latch timed out");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** One model call as the test sees it. */
  record Call(ChatRequest request, Cancellation cancellation) {}

  /** Answers each call with the next scripted function and records every request. */
  static final class ScriptModel implements ChatModel {
    final List<ChatRequest> requests = new CopyOnWriteArrayList<>();
    final BlockingQueue<Function<Call, ChatResponse>> script = new LinkedBlockingQueue<>();
    volatile StreamListener.Retry retryFirst;

    void respond(Function<Call, ChatResponse> answer) {
      script.add(answer);
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
      requests.add(request);
      StreamListener.Retry wait = retryFirst;
      if (wait != null) {
        retryFirst = null;
        listener.retrying(wait);
      }
      Function<Call, ChatResponse> next = script.poll();
      if (next == null) {
        throw new ModelException(ModelException.Kind.PROTOCOL, "the test script ran out");
      }
      ChatResponse response = next.apply(new Call(request, cancellation));
      if (!response.message().text().isEmpty()) {
        listener.textDelta(response.message().text());
      }
      return response;
    }
  }

  /** run_shell {command}: records the commands it was asked to run, and runs none. */
  static final class ShellTool implements Tool {
    final List<String> ran = new CopyOnWriteArrayList<>();

    @Override
    public ToolSpec spec() {
      return new ToolSpec("run_shell", "run a command", JSON.createObjectNode().put("type", "object"));
    }

    @Override
    public ToolKind kind() {
      return ToolKind.SHELL;
    }

    @Override
    public String describe(JsonNode arguments) {
      return arguments.path("command").asText();
    }

    @Override
    public ToolResult run(JsonNode arguments, ToolContext context) {
      ran.add(arguments.path("command").asText());
      return ToolResult.ok("ran");
    }
  }

  /** write {path, content}: an edit tool that records its change like the real ones. */
  static final class WriteTool implements Tool {
    static volatile Runnable beforeWrite = () -> { };

    @Override
    public ToolSpec spec() {
      return new ToolSpec("write", "write a file", JSON.createObjectNode().put("type", "object"));
    }

    @Override
    public ToolKind kind() {
      return ToolKind.EDIT;
    }

    @Override
    public String describe(JsonNode arguments) {
      return arguments.path("path").asText();
    }

    @Override
    public ToolResult run(JsonNode arguments, ToolContext context) {
      try {
        beforeWrite.run();
        String path = arguments.path("path").asText();
        FileState before = context.turn().read(path);
        Files.writeString(context.projectRoot().resolve(path), arguments.path("content").asText(), StandardCharsets.UTF_8);
        context.turn().recordFromDisk(path, before);
        return ToolResult.ok("wrote " + path);
      } catch (IOException e) {
        return ToolResult.error(ErrorKind.STORE_IO, e.getMessage());
      } finally {
        beforeWrite = () -> { };
      }
    }
  }
}
