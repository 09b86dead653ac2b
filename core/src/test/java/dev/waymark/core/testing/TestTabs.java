package dev.waymark.core.testing;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The agent layer's fixture: a project and a Waymark home under a test's temporary directory, its
 * store, and tabs with a model (scripted, or the test's own); closing it closes the tabs, then the
 * store. The one place the agent tests build a {@link TabSession} from parts; {@link #watched}
 * gives the tab with its {@link TabEvents} to wait on.
 */
public final class TestTabs implements AutoCloseable {
  public final Path project;
  public final Path home;
  public final ShadowStore store;
  private final List<TabSession> open = new CopyOnWriteArrayList<>();

  public TestTabs(Path temp) {
    try {
      this.project = Files.createDirectories(temp.resolve("project"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.home = temp.resolve("home");
    this.store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT);
  }

  /** A model that plays {@code json} (single quotes read as double). */
  public static ScriptedChatModel scripted(String json) {
    return new ScriptedChatModel(ScriptedChatModel.parse(json.replace('\'', '"'), "test script"));
  }

  /** Tab {@code tabId} of the store, run by {@code model} with {@code tools}. */
  public TabSession open(String tabId, ChatModel model, Toolset tools, SessionSettings settings) {
    TabSession session = TabSession.of(store.openTab(tabId), store.projectDirectory(), model, tools, settings);
    open.add(session);
    return session;
  }

  /** A tab and the events it sends from its start. */
  public record Watched(TabSession session, TabEvents events) {}

  /** As {@link #open}, with the tab's events watched from before its first command. */
  public Watched watched(String tabId, ChatModel model, Toolset tools, SessionSettings settings) {
    TabSession session = open(tabId, model, tools, settings);
    return new Watched(session, TabEvents.of(session));
  }

  /** Tab {@code tab1} with the standard tools at their defaults, model {@code test-model} in {@code mode}, interactive. */
  public Watched watchedWithStandardTools(ChatModel model, ApprovalMode mode) {
    return watched("tab1", model, Toolset.of(Tools.standard(ToolSettings.DEFAULTS).all()),
        new SessionSettings("test-model", mode, true, "base prompt"));
  }

  /**
   * The events of {@code session}'s turn, from now until it finishes; {@code each} sees every one
   * as it comes (to answer an approval). Fails when none comes for 30 s.
   */
  public static List<Event> untilTurnFinished(TabSession session, Runnable start, Consumer<Event> each)
      throws InterruptedException {
    BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    session.subscribe(events::add);
    start.run();
    List<Event> seen = new ArrayList<>();
    while (seen.stream().noneMatch(e -> e instanceof Event.TurnFinished)) {
      Event e = events.poll(30, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no event for 30 s; events so far: " + seen);
      }
      seen.add(e);
      each.accept(e);
    }
    return seen;
  }

  @Override
  public void close() {
    open.forEach(TabSession::close);
    store.close();
  }
}
