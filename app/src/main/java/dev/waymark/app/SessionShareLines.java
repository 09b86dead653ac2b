package dev.waymark.app;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.share.SessionShare;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code sessions export ID FILE} and {@code sessions import FILE}: what they do and print (see {@link SessionShare}). */
final class SessionShareLines {
  private SessionShareLines() {}

  static void export(ShadowStore store, SessionStore files, String id, Path file, boolean json, PrintWriter out,
      PrintWriter err) throws Exception {
    SessionShare.Exported done = SessionShare.export(store, files, id, file.toAbsolutePath());
    if (json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("session", done.session().id());
      o.put("file", file.toAbsolutePath().toString());
      o.put("tabs", done.session().tabs().size());
      o.put("tags", done.tags());
      o.put("basePaths", done.basePaths());
      o.put("notes", done.notes());
      out.println(JsonOutput.JSON.writeValueAsString(o));
    } else {
      out.println("Exported session " + done.session().id() + " (" + Counted.of(done.session().tabs().size(), "tab") + ", "
          + Counted.of(done.tags(), "tag") + ") to " + file.toAbsolutePath() + ". In another clone of the project, with the files "
          + "its checkpoints touched as they are here: `waymark sessions import " + file.getFileName() + "`.");
    }
  }

  static void importFrom(ShadowStore store, SessionStore files, Path file, boolean json, PrintWriter out, PrintWriter err)
      throws Exception {
    SessionShare.Imported done = SessionShare.importFrom(store, files, file.toAbsolutePath());
    done.notes().forEach(note -> err.println("waymark: " + note));
    int checkpoints = SessionStore.checkpointsMade(done.session());
    if (json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("session", done.session().id());
      o.put("tabs", done.session().tabs().size());
      o.put("checkpoints", checkpoints);
      o.put("tags", done.tags());
      o.put("notes", done.notes());
      out.println(JsonOutput.JSON.writeValueAsString(o));
    } else {
      out.println("Imported session " + done.session().id() + " (" + Counted.of(done.session().tabs().size(), "tab") + ", "
          + Counted.of(checkpoints, "checkpoint") + ", " + Counted.of(done.tags(), "tag") + "): `waymark --resume " + done.session().id()
          + "` opens it.");
    }
  }
}
