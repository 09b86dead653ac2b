package dev.waymark.app;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.workspace.Workspace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code waymark sessions [list | delete ID | export ID FILE | import FILE]}: the saved sessions of a project. */
@Command(name = "sessions", mixinStandardHelpOptions = true,
    description = {"List the saved sessions of a project, newest first, or delete one (with its tags).",
        "  export ID FILE   one file (a git bundle) with the session and its checkpoints,",
        "                   for another clone",
        "  import FILE      open such a file here; refused while the files its",
        "                   checkpoints touched differ"})
final class SessionsCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  @Parameters(index = "0", arity = "0..1", paramLabel = "ACTION", defaultValue = "list",
      description = "list (default), delete, export or import")
  String action;

  @Parameters(index = "1", arity = "0..1", paramLabel = "ID", description = "The session to delete or export (id or name); "
      + "import: the FILE.")
  String id;

  @Parameters(index = "2", arity = "0..1", paramLabel = "FILE", description = "export: the file to write.")
  Path file;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Option(names = "--json", description = "Print JSON for scripts.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (ShadowStore store = ShadowStore.open(directory.toAbsolutePath(), main.home(), RetentionPolicy.DEFAULT);
        Workspace workspace = Workspaces.headless(store)) {
      SessionStore files = workspace.files();
      switch (action) {
        case "list" -> {
          if (id != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "`sessions list` takes no id.");
          }
          List<SessionStore.Listing> all = files.list();
          Instant now = Instant.now();
          if (json) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (SessionStore.Listing l : all) {
              Map<String, Object> row = new LinkedHashMap<>();
              row.put("id", l.id());
              row.put("name", l.name());
              row.put("title", l.title());
              row.put("updated", l.updated());
              row.put("age_seconds", l.updated() == null ? null
                  : Math.max(0, Duration.between(l.updated(), now).getSeconds()));
              row.put("tabs", l.tabs());
              row.put("checkpoints", l.checkpoints());
              row.put("problem", l.problem().orElse(null));
              rows.add(row);
            }
            out.println(JsonOutput.JSON.writeValueAsString(rows));
          } else if (all.isEmpty()) {
            out.println("No saved sessions for " + store.projectDirectory() + ".");
          } else {
            all.forEach(l -> out.println(line(l, now)));
          }
          return 0;
        }
        case "delete" -> {
          if (id == null || file != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "`sessions delete` needs the session's id, alone.");
          }
          SessionFile deleted = workspace.deleteSession(id);
          if (json) {
            out.println(JsonOutput.JSON.writeValueAsString(Map.of("deleted", deleted.id(), "tabs", deleted.tabs().size())));
          } else {
            out.println("Deleted session " + deleted.id() + " and the tags of its " + Counted.of(deleted.tabs().size(), "tab") + ".");
          }
          return 0;
        }
        case "export" -> {
          if (id == null || file == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Usage: `sessions export ID FILE`.");
          }
          SessionShareLines.export(store, files, id, file, json, out, err);
          return 0;
        }
        case "import" -> {
          if (id == null || file != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Usage: `sessions import FILE`.");
          }
          SessionShareLines.importFrom(store, files, Path.of(id), json, out, err);
          return 0;
        }
        default -> throw new CommandLine.ParameterException(spec.commandLine(),
            "Unknown action \"" + action + "\": use list, delete, export or import.");
      }
    } catch (SessionException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  /** A session as a user picks it out: id, age, title, then its size. */
  static String line(SessionStore.Listing l, Instant now) {
    String age = l.updated() == null ? "?" : age(Duration.between(l.updated(), now));
    if (l.problem().isPresent()) {
      return l.id() + "  " + age + "  cannot be loaded: " + l.problem().get();
    }
    return l.id() + "  " + age + "  " + (l.title().isEmpty() ? "(no prompt yet)" : l.title()) + "  (" + l.tabs()
        + (l.tabs() == 1 ? " tab, " : " tabs, ") + l.checkpoints() + (l.checkpoints() == 1 ? " checkpoint)" : " checkpoints)");
  }

  /** How long ago, in the largest unit that is at least one. */
  static String age(Duration since) {
    long seconds = Math.max(0, since.getSeconds());
    if (seconds < 60) {
      return "just now";
    }
    if (seconds < 3600) {
      return seconds / 60 + " min ago";
    }
    if (seconds < 86_400) {
      return seconds / 3600 + " h ago";
    }
    long days = seconds / 86_400;
    return days + (days == 1 ? " day ago" : " days ago");
  }
}
