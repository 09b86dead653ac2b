package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.testing.TabEvents;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A custom command is shown as typed ({@code /review src/Foo.java}) while the model gets its expanded prompt (#39 §14). */
class TypedCommandPromptTest {
  static final String TYPED = "/review src/Foo.java";
  static final String EXPANDED = "Review src/Foo.java for bugs; list each with its line.";

  @TempDir Path temp;
  TestTabs tabs;
  TabSessionTest.ScriptModel model;
  TabSession session;
  TabEvents events;

  @BeforeEach
  void open() throws Exception {
    tabs = new TestTabs(temp);
    Path project = tabs.project;
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
  void theChatRewindUndoAndTheSavedTranscriptShowTheCommandAsTypedAndTheModelGetsItsPrompt() throws Exception {
    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("No bugs.", List.of()), Optional.empty(), "stop"));
    session.submit(new Command.SendPrompt(EXPANDED, TYPED));
    Event.TurnStarted started = events.await(Event.TurnStarted.class);
    events.await(Event.TurnFinished.class);
    assertThat(started.prompt()).as("the chat line and the tab's title").isEqualTo(TYPED);
    List<ChatMessage> sent = model.requests.get(0).messages();
    assertThat(sent.get(sent.size() - 1)).isInstanceOfSatisfying(ChatMessage.User.class,
        m -> assertThat(m.text()).contains(EXPANDED).contains(TYPED));

    session.submit(new Command.List());
    Event.CheckpointsListed listed = events.await(Event.CheckpointsListed.class);
    assertThat(listed.checkpoints()).anySatisfy(c -> {
      assertThat(c.number()).isEqualTo(1);
      assertThat(c.prompt()).as("what /rewind and checkpoints list show").isEqualTo(TYPED);
    });

    SessionFile.Tab tab = SessionCodec.capture(SessionCodec.valuesOf(session, new SessionCodec.TabInfo("", "scripted", "")));
    SessionStore files = new SessionStore(temp.resolve("sessions"), Clock.systemUTC());
    files.save(new SessionFile(SessionStore.SCHEMA_VERSION, "s1", null, "project", Instant.now(), Instant.now(), "tab1",
        List.of(tab)));
    assertThat(files.list()).singleElement().satisfies(l -> assertThat(l.title()).as("waymark sessions").isEqualTo(TYPED));
    assertThat(SessionCodec.history(tab).get(1)).as("a tab saved without its transcript shows it as typed too")
        .anySatisfy(e -> assertThat(e).isEqualTo(new Event.TurnStarted(1, 0, TYPED)));

    session.submit(Command.Undo.one());
    Event.CheckpointRestored undone = events.await(Event.CheckpointRestored.class);
    assertThat(undone.draft()).as("undo gives back what was typed, to run again").isEqualTo(TYPED);
  }

  @Test
  void aSteerFromACommandIsShownAsTypedToo() throws Exception {
    CountDownLatch answering = new CountDownLatch(1);
    CountDownLatch steered = new CountDownLatch(1);
    model.respond(r -> {
      answering.countDown();
      try {
        steered.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new ChatResponse(new ChatMessage.Assistant("Looking.", List.of()), Optional.empty(), "stop");
    });
    model.respond(r -> new ChatResponse(new ChatMessage.Assistant("Reviewed.", List.of()), Optional.empty(), "stop"));
    session.submit(new Command.SendPrompt("look around"));
    assertThat(answering.await(10, TimeUnit.SECONDS)).isTrue();
    session.submit(new Command.Steer(EXPANDED, TYPED));
    Event.SteeringQueued queued = events.await(Event.SteeringQueued.class);
    steered.countDown();
    assertThat(queued.text()).isEqualTo(TYPED);
    Event.SteeringFolded folded = events.await(Event.SteeringFolded.class);
    assertThat(folded.text()).isEqualTo(TYPED);
  }
}
