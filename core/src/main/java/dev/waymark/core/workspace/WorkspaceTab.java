package dev.waymark.core.workspace;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.protocol.Event;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One tab of a {@link Workspace}: its session, and what its session record keeps besides the
 * session itself (its title, what sits in its input, whether the user closed it). A tab brought
 * back from a saved session tells each subscriber first what it showed ({@link Event.TabRestored}).
 */
public final class WorkspaceTab {
  private final TabSession session;
  private final Transcript transcript;
  private final Optional<Event.TabRestored> restored;
  private volatile String title;
  private volatile String input;
  private volatile boolean closed;
  private final Optional<Kept> kept;

  /**
   * The provider, model and mode a tab was saved with, saved again as they were by a command that
   * never asks a model (its own model is "none", its mode the safest).
   */
  record Kept(String provider, String model, String approval) {}

  WorkspaceTab(TabSession session, Transcript transcript, Optional<Event.TabRestored> restored, String title, String input,
      boolean closed) {
    this(session, transcript, restored, title, input, closed, Optional.empty());
  }

  WorkspaceTab(TabSession session, Transcript transcript, Optional<Event.TabRestored> restored, String title, String input,
      boolean closed, Optional<Kept> kept) {
    this.kept = kept;
    this.session = session;
    this.transcript = transcript;
    this.restored = restored;
    this.title = title == null ? "" : title;
    this.input = input == null ? "" : input;
    this.closed = closed;
    session.subscribe(this::record); // before any front end: a save after an event has it
  }

  public TabSession session() {
    return session;
  }

  public String tabId() {
    return session.tabId();
  }

  /** The tab whose subagent works in this one, for the tab bar; empty for a tab of the user's. */
  private volatile Optional<String> subagentOf = Optional.empty();

  public Optional<String> subagentOf() {
    return subagentOf;
  }

  void subagentOf(String parentTab) {
    this.subagentOf = Optional.of(parentTab);
  }

  /** The first line of the tab's first prompt, its label. */
  public String title() {
    return title;
  }

  /** What sat in the tab's input when it was saved, or was last told ({@link #input(String)}). */
  public String input() {
    return input;
  }

  /** The front end tells what sits in the tab's input now; the next save keeps it. */
  public void input(String text) {
    input = text == null ? "" : text;
  }

  public boolean closed() {
    return closed;
  }

  void closed(boolean isClosed) {
    closed = isClosed;
  }

  /** Events of the tab from now on, after what it showed when it was saved (for a restored tab). */
  public void subscribe(Consumer<Event> subscriber) {
    restored.ifPresent(shown -> {
      subscriber.accept(shown);
      subscriber.accept(session.contextEstimate()); // the footer's figure now, not after the next turn
    });
    session.subscribe(subscriber);
  }

  /** What to save as the tab's provider, model and mode instead of its session's; empty for a tab that runs. */
  Optional<Kept> kept() {
    return kept;
  }

  Transcript transcript() {
    return transcript;
  }

  private void record(Event event) {
    transcript.record(event);
    if (event instanceof Event.TurnStarted started && title.isEmpty()) {
      title = started.prompt().strip().lines().findFirst().orElse("");
    }
  }
}
