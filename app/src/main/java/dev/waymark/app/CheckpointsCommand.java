package dev.waymark.app;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code waymark checkpoints list | diff [N] | undo [N] | redo | goto N | save NAME}: the checkpoints
 * of one tab of a saved session, through the same engine as the interface. What changes here is
 * saved to the session, so the interface shows it when it opens the session.
 */
@CommandLine.Command(name = "checkpoints", mixinStandardHelpOptions = true,
    description = {"List, diff, undo, redo, go to or save the checkpoints of a tab of a saved session.",
        "Exit status: 0 done, 1 refused (e.g. later edits clash) or failed, 2 bad arguments."})
final class CheckpointsCommand implements Callable<Integer> {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Main main;

  @Parameters(index = "0", paramLabel = "ACTION", description = "list, diff, undo, redo, goto or save")
  String action;

  @Parameters(index = "1", arity = "0..1", paramLabel = "ARG", description = "N for diff, undo and goto; NAME for save and goto")
  String argument;

  @Option(names = "--session", paramLabel = "ID", description = "The session (id or name; default: the last saved).")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", description = "The tab (default: the session's active tab, else its first open one).")
  String tabId;

  @Option(names = "--json", description = "Print JSON for scripts.")
  boolean json;

  @Option(names = "--force", description = "undo, redo, goto: overwrite later edits that clash (what they held is kept under a rescued tag).")
  boolean force;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Command command = command();
    try (ShadowStore store = ShadowStore.open(directory.toAbsolutePath(), main.home(), RetentionPolicy.DEFAULT);
        Workspace workspace = Workspaces.headless(store)) {
      workspace.onNotice(note -> err.println("waymark: " + note));
      SessionFile file = sessionId != null ? workspace.files().load(sessionId) : workspace.files().latest()
          .orElseThrow(() -> new SessionException("This project has no saved session yet: `waymark` or `waymark exec` makes one."));
      boolean looking = command instanceof Command.List || command instanceof Command.Diff;
      String wanted = tabId != null ? tabId : Workspace.defaultTab(file).orElse(null);
      if (file.tabs().stream().noneMatch(t -> t.tabId().equals(wanted))) {
        throw new SessionException("Session " + (file.name() == null ? file.id() : file.name() + " (" + file.id() + ")")
            + " has no tab " + tabId + " (it has " + String.join(", ", file.tabs().stream().map(SessionFile.Tab::tabId).toList())
            + ").");
      }
      // only the tab asked for is locked: the interface may hold the others meanwhile
      Workspace.Opened opened = workspace.open(file, looking, wanted::equals);
      opened.notes().forEach(note -> err.println("waymark: " + note));
      TabSession tab = opened.tabs().get(0).session();
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.subscribe(events::add);
      tab.submit(command);
      tab.idle().get(60, TimeUnit.SECONDS);
      int status = report(events, workspace, tab, out, err);
      if (!looking) {
        String told = workspace.save(null);
        if (!told.startsWith("Saved session")) {
          err.println("waymark: " + told); // the session changed elsewhere meanwhile: where this change went
        }
      }
      return status;
    } catch (SessionException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  private Command command() {
    CommandLine cli = spec.commandLine();
    if (force && !List.of("undo", "redo", "goto").contains(action)) {
      throw new CommandLine.ParameterException(cli, "--force goes with undo, redo or goto, not " + action + ".");
    }
    try {
      return switch (action) {
        case "list" -> noArgument(new Command.List());
        case "diff" -> argument == null ? Command.Diff.live() : Command.Diff.of(number());
        case "undo" -> new Command.Undo(argument == null ? OptionalInt.empty() : OptionalInt.of(number()), force);
        case "redo" -> noArgument(new Command.Redo(force));
        case "goto" -> {
          if (argument == null) {
            throw new CommandLine.ParameterException(cli, "`checkpoints goto` needs a checkpoint number or a save name.");
          }
          yield argument.matches("#?\\d+") ? new Command.GoTo(number(), force) : new Command.GoToSaved(argument, force);
        }
        case "save" -> {
          if (argument == null) {
            throw new CommandLine.ParameterException(cli, "`checkpoints save` needs a name.");
          }
          yield new Command.Save(argument);
        }
        default -> throw new CommandLine.ParameterException(cli,
            "Unknown action \"" + action + "\": use list, diff, undo, redo, goto or save.");
      };
    } catch (NumberFormatException e) {
      throw new CommandLine.ParameterException(cli, "Not a checkpoint number: \"" + argument + "\".");
    }
  }

  private Command noArgument(Command c) {
    if (argument != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "`checkpoints " + action + "` takes no argument.");
    }
    return c;
  }

  private int number() {
    String digits = argument.startsWith("#") ? argument.substring(1) : argument;
    return Integer.parseInt(digits);
  }

  private int report(LinkedBlockingQueue<Event> events, Workspace workspace, TabSession tab, PrintWriter out,
      PrintWriter err) throws Exception {
    Event event;
    while ((event = events.poll()) != null) {
      if (event instanceof Event.Error error) {
        err.println("waymark: " + error.message());
        return 1;
      }
      if (event instanceof Event.CheckpointsListed listed) {
        list(listed, workspace, tab, out);
        return 0;
      }
      if (event instanceof Event.DiffReady diff) {
        diff(diff.diff(), out);
        return 0;
      }
      if (event instanceof Event.CheckpointRestored restored) {
        RestoreOutcome r = restored.result();
        if (json) {
          Map<String, Object> o = new LinkedHashMap<>();
          o.put("applied", r.applied());
          o.put("from", r.from());
          o.put("target", r.target());
          o.put("written", r.written());
          o.put("merged", r.merged());
          o.put("conflicts", r.conflicts());
          o.put("rescueTag", r.rescueTag().orElse(null));
          o.put("livePath", r.livePath());
          out.println(SessionsCommand.JSON.writeValueAsString(o));
        } else {
          (r.applied() ? out : err).println(r.applied() ? r.summary() : "waymark: " + r.summary());
        }
        return r.applied() ? 0 : 1;
      }
      if (event instanceof Event.CheckpointSaved saved) {
        if (json) {
          out.println(SessionsCommand.JSON.writeValueAsString(Map.of("checkpoint", saved.checkpoint().number(),
              "name", saved.name(), "tag", ShadowStore.tagPrefix(tab.checkpoints().tabId()) + "saved/" + saved.name())));
        } else {
          out.println("Saved #" + saved.checkpoint().number() + " as \"" + saved.name() + "\": "
              + ShadowStore.tagPrefix(tab.checkpoints().tabId()) + "saved/" + saved.name());
        }
        return 0;
      }
    }
    err.println("waymark: the tab gave no answer.");
    return 1;
  }

  private void list(Event.CheckpointsListed listed, Workspace workspace, TabSession tab, PrintWriter out) throws Exception {
    if (json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("session", workspace.id());
      o.put("tab", tab.checkpoints().tabId());
      o.put("live", listed.live());
      List<Map<String, Object>> rows = new ArrayList<>();
      for (CheckpointSummary c : listed.checkpoints()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("number", c.number());
        row.put("parent", c.parent().orElse(-1)); // as the JSON has always said it of #0
        row.put("status", c.status().name().toLowerCase(java.util.Locale.ROOT));
        row.put("created", c.created());
        row.put("prompt", c.prompt());
        row.put("filesChanged", c.filesChanged());
        row.put("added", c.added());
        row.put("removed", c.removed());
        row.put("onLivePath", c.onLivePath());
        row.put("tag", c.tag().orElse(null));
        row.put("saved", c.savedNames());
        rows.add(row);
      }
      o.put("checkpoints", rows);
      out.println(SessionsCommand.JSON.writeValueAsString(o));
      return;
    }
    out.println("Session " + workspace.label() + ", tab " + tab.checkpoints().tabId() + " (live #" + listed.live() + "):");
    for (CheckpointSummary c : listed.checkpoints()) {
      String prompt = c.number() == 0 ? "(start)" : c.prompt().strip().lines().findFirst().orElse("");
      out.printf("%s#%-4d %s  %s%s%s%s%n", c.number() == listed.live() ? "▸" : " ", c.number(), TIME.format(c.created()),
          prompt.length() > 60 ? prompt.substring(0, 59) + "…" : prompt,
          c.filesChanged() > 0 ? "  " + c.filesChanged() + " file(s) +" + c.added() + " −" + c.removed() : "",
          c.onLivePath() ? "" : "  (undone)",
          c.savedNames().isEmpty() ? "" : "  saved: " + String.join(", ", c.savedNames()));
    }
  }

  private void diff(DiffView diff, PrintWriter out) throws Exception {
    if (json) {
      List<Map<String, Object>> files = new ArrayList<>();
      for (DiffView.FileDiff f : diff.files()) {
        files.add(Map.of("path", f.path(), "added", f.added(), "removed", f.removed(), "binary", f.binary(), "unified", f.unified()));
      }
      out.println(SessionsCommand.JSON.writeValueAsString(Map.of("checkpoint", diff.checkpoint(), "files", files)));
    } else if (diff.isEmpty()) {
      out.println("The files on disk are as they were at #" + diff.checkpoint() + ".");
    } else {
      out.print(diff.unified());
      out.flush();
    }
  }
}
