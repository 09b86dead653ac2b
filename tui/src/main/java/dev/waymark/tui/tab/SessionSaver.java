package dev.waymark.tui.tab;

import dev.waymark.tui.SessionControl;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the session on its own thread, in order, so a slow disk never stalls a frame: autosaves
 * when something changed, the saves the user asks for, and the save before a turn starts.
 */
public final class SessionSaver implements TabController.BeforeTurn {
  private static final Logger LOG = LoggerFactory.getLogger(SessionSaver.class);

  private final SessionControl sessions;
  private final Tabs tabs;
  private final Consumer<String> failed;
  private final ExecutorService saver = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "waymark-session-saver");
    t.setDaemon(true);
    return t;
  });
  private boolean changed;

  /** @param failed tells the user an autosave failed (from the saver thread) */
  public SessionSaver(SessionControl sessions, Tabs tabs, Consumer<String> failed) {
    this.sessions = sessions;
    this.tabs = tabs;
    this.failed = failed;
  }

  public SessionControl sessions() {
    return sessions;
  }

  public void changed() {
    changed = true;
  }

  /** Autosaves if something changed since the last save. */
  public void saveIfChanged() {
    if (changed) {
      save(null, false);
    }
  }

  /**
   * Saves the session of the open tabs. An autosave ({@code force} false) is written on the saver
   * thread; the others wait for it (after any autosave still queued) and return what to tell the
   * user. A failed autosave is reported in the chat.
   */
  public String save(String name, boolean force) {
    if (tabs.isEmpty() || (!force && !changed)) {
      return "";
    }
    changed = false;
    List<SessionControl.OpenTab> open = tabs.toSave(null, null);
    Future<String> saved = saver.submit(() -> {
      try {
        return sessions.save(open, name);
      } catch (RuntimeException e) {
        LOG.warn("saving the session failed", e);
        if (name == null) {
          failed.accept("The session could not be saved: " + e.getMessage());
          return "";
        }
        throw e;
      }
    });
    if (!force) {
      return "";
    }
    try {
      return saved.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }

  /**
   * Runs {@code then} (submits a turn's commands) once the session is saved with {@code draft} as
   * the tab's input. A turn writes ahead to the store from its first tool call, before the autosave
   * of its start can run: saved first, a process killed at any moment leaves a session that names
   * the tab (so its tags come back) and keeps the message that started the turn.
   */
  @Override
  public void saveThen(TabController tab, String draft, Runnable then) {
    List<SessionControl.OpenTab> open = tabs.toSave(tab, draft);
    try {
      saver.execute(() -> {
        try {
          sessions.save(open, null);
        } catch (RuntimeException e) {
          LOG.warn("saving the session before a turn failed", e);
          failed.accept("The session could not be saved: " + e.getMessage());
        } finally {
          then.run();
        }
      });
    } catch (RejectedExecutionException shuttingDown) {
      then.run();
    }
  }

  public void shutdown() {
    saver.shutdown();
  }
}
