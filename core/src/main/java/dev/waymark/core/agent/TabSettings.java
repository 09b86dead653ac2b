package dev.waymark.core.agent;

import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.tool.ApprovalMode;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A tab's settings commands, {@code SetMode} and {@code SetModel}: set at once, on the submitting
 * thread, so that a second Shift+Tab right after the first sees the first's mode; told in order,
 * on the tab's queue.
 */
final class TabSettings {
  private final TabParts parts;
  private final AtomicReference<SessionSettings> settings;
  private final TabQueue queue;

  TabSettings(TabParts parts) {
    this.parts = parts;
    this.settings = parts.settings();
    this.queue = parts.queue();
  }

  void setMode(Command.SetMode c) {
    ApprovalMode mode;
    try {
      mode = ApprovalMode.parse(c.mode());
    } catch (IllegalArgumentException e) {
      queue.now("SetMode", () -> { throw e; }); // an Error naming this submission
      return;
    }
    SessionSettings now = settings.updateAndGet(s -> s.withApproval(mode));
    queue.now("SetMode", () -> changed(now));
  }

  void setModel(Command.SetModel c) {
    String model = c.model() == null ? "" : c.model().strip();
    if (model.isEmpty() || model.chars().anyMatch(ch -> Character.isWhitespace(ch) || Character.isISOControl(ch))) {
      queue.now("SetModel", () -> {
        throw new IllegalArgumentException("a model name is one word, e.g. gpt-4.1-mini; got \"" + c.model() + "\"");
      });
      return;
    }
    SessionSettings now = settings.updateAndGet(s -> s.withModel(model));
    queue.now("SetModel", () -> changed(now));
  }

  private void changed(SessionSettings now) {
    parts.emit(new Event.SettingsChanged(now.model(), now.approval().label()));
  }
}
