package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.testing.TabEvents;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code !command}: the user's own shell command, recorded as a checkpoint and given to the model next (#39 item 7). */
class UserShellTest {
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
    TestTabs.Watched watched = tabs.watchedWithStandardTools(model, ApprovalMode.ASK);
    session = watched.session();
    events = watched.events();
  }

  @AfterEach
  void close() {
    tabs.close();
  }

  @Test
  void aCommandTheUserTypesRunsUnaskedInACheckpointThatUndoTakesBackAndTheModelReadsItNext() throws Exception {
    session.submit(new Command.RunShell("echo made > a.txt; echo listed"));
    Event.TurnFinished finished = events.await(Event.TurnFinished.class);
    assertThat(finished.status()).isEqualTo(TurnStatus.DONE);
    assertThat(model.requests).as("the model is not called").isEmpty();
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("made\n");
    Event.TurnStarted started = events.stream().filter(Event.TurnStarted.class::isInstance).map(Event.TurnStarted.class::cast)
        .findFirst().orElseThrow();
    assertThat(started.prompt()).isEqualTo("!echo made > a.txt; echo listed");
    assertThat(events).noneMatch(e -> e instanceof Event.ToolCallProposed p && p.needsApproval());
    assertThat(events).anyMatch(e -> e instanceof Event.ToolCallFinished f && f.result().contains("listed"));
    assertThat(events).anyMatch(e -> e instanceof Event.CheckpointCreated c && c.checkpoint().number() == 1);

    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("Seen.", List.of()), Optional.empty(), "stop"));
    session.submit(new Command.SendPrompt("what did I just run?"));
    events.await(Event.TurnFinished.class);
    List<ChatMessage> sent = model.requests.get(0).messages();
    assertThat(sent.get(sent.size() - 2)).isInstanceOfSatisfying(ChatMessage.User.class, m -> assertThat(m.text())
        .contains("The user ran this shell command themselves", "!echo made > a.txt; echo listed", "listed"));

    session.submit(Command.Undo.one());
    events.await(Event.CheckpointRestored.class);
    session.submit(Command.Undo.one());
    Event.CheckpointRestored undone = events.await(Event.CheckpointRestored.class);
    assertThat(undone.draft()).isEqualTo("!echo made > a.txt; echo listed");
    assertThat(project.resolve("a.txt")).doesNotExist();
  }
}
