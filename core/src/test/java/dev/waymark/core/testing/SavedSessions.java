package dev.waymark.core.testing;

import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Session files as a user's project collects them: one tab, one prompt each, for the tests of lists and pickers. */
public final class SavedSessions {
  private SavedSessions() {}

  /** Saves session {@code id} (named {@code name}, null for none) whose one turn was {@code prompt}, last changed {@code updated}. */
  public static SessionFile save(SessionStore store, String id, String name, String prompt, Instant updated) {
    SessionFile.Checkpoint start = new SessionFile.Checkpoint(0, -1, "done", updated, null, null, List.of(), List.of(),
        List.of(), null, null);
    SessionFile.Checkpoint one = new SessionFile.Checkpoint(1, 0, "done", updated, null, null, List.of(), List.of(),
        List.of(new SessionFile.Message("user", prompt, null, null, null, null),
            new SessionFile.Message("assistant", "Done.", null, null, null, null)), "", null);
    SessionFile.Tab tab = new SessionFile.Tab("t" + id, "", "scripted", "test-model", "", 1, 1, List.of(),
        List.of(start, one), Map.of());
    SessionFile session = new SessionFile(SessionStore.SCHEMA_VERSION, id, name, "/p", updated, updated, tab.tabId(),
        List.of(tab));
    store.save(session);
    return session;
  }

  /**
   * Sessions {@code s0000} … on, {@code count} of them, one minute apart from {@code start}, the
   * {@code i}-th prompt {@code "prompt number i"}: written from one saved template, without a disk
   * sync each, so that a thousand take a moment.
   */
  public static void saveMany(SessionStore store, int count, Instant start) throws IOException {
    save(store, "template", null, "TEMPLATE_PROMPT", TEMPLATE_TIME);
    String template = Files.readString(store.file("template"));
    Files.delete(store.file("template"));
    for (int i = 0; i < count; i++) {
      String id = String.format("s%04d", i);
      Files.writeString(store.file(id), template.replace("\"template\"", "\"" + id + "\"")
          .replace("\"ttemplate\"", "\"t" + id + "\"").replace("TEMPLATE_PROMPT", "prompt number " + i)
          .replace(TEMPLATE_TIME.toString(), start.plusSeconds(60L * i).toString()));
    }
  }

  private static final Instant TEMPLATE_TIME = Instant.parse("2000-01-01T00:00:00Z");
}
