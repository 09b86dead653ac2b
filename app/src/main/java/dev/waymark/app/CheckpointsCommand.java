package dev.waymark.app;

import dev.waymark.core.Counted;
import dev.waymark.core.agent.CheckpointOutline;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.workspace.Workspace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code waymark checkpoints list | diff [N] | undo [N] | redo | goto N | restore N ... | revert N ... | save NAME}: the checkpoints
 * of one tab of a saved session, through the same engine as the interface. What changes here is
 * saved to the session, so the interface shows it when it opens the session.
 */
@CommandLine.Command(name = "checkpoints", mixinStandardHelpOptions = true,
    subcommands = {CheckpointsBisectCommand.class, CheckpointsExport.class},
    description = {"List, diff, undo, redo, go to, restore, revert or save the checkpoints of a tab",
        "of a saved session; land or discard an isolated tab's view (diff then shows",
        "the view against the project).",
        // each row within 80 columns: picocli would wrap a longer one to column 0, mid-sentence
        "  restore N [files|conversation|both]    restore N -- PATH...",
        "  diff [N] [--stat]: the disk against #N diff A B [-- PATH...] [--stat]",
        "    (A, B: N, live, a save, or TAB:N of another tab)",
        "  revert N[..M] [-- PATH...]             save NAME [--force]",
        "  save --delete NAME",
        "  bisect --run CMD [--good A] [--bad B]  (see `checkpoints bisect --help`)",
        "  export --branch NAME [--squash] [--force] [A..B]",
        "    (see `checkpoints export --help`)",
        "  rescued [NAME [restore [--force]]]     what a --force overwrote: list, show",
        "    against the disk, put back",
        "  land [--keep-isolated]                 then a normal tab, or still isolated",
        "Exit status: 0 done, 1 refused (e.g. later edits clash) or failed, 2 bad arguments."})
final class CheckpointsCommand implements Callable<Integer> {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  // optional to picocli only so that a subcommand (bisect, export) may stand in its place; command() requires it
  @Parameters(index = "0", arity = "0..1", paramLabel = "ACTION",
      description = "list, diff, undo, redo, goto, restore, revert, save, rescued, land or discard")
  String action;

  @Parameters(index = "1", arity = "0..1", paramLabel = "ARG",
      description = "N for diff, undo, goto and restore; N or N..M for revert; NAME for save and goto")
  String argument;

  @Parameters(index = "2..*", arity = "0..*", paramLabel = "MORE",
      description = "restore: files, conversation or both; restore and revert: -- then the paths")
  List<String> more = new ArrayList<>();

  @Option(names = "--delete", paramLabel = "NAME", description = "save: delete the save NAME (the checkpoint stays).")
  String deleteSave;

  @Option(names = "--session", paramLabel = "ID", description = "The session (id or name; default: the last saved).")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", description = "The tab (default: the session's active tab, else its first open one).")
  String tabId;

  @Option(names = "--json", description = "Print JSON for scripts.")
  boolean json;

  @Option(names = "--stat", description = "diff: a line per file and the totals, as git diff --stat.")
  boolean stat;

  @Option(names = "--force", description = "undo, redo, goto, restore, revert: overwrite later edits that clash (what they "
      + "held is kept under a rescued tag); save: move an existing name.")
  boolean force;

  @Option(names = "--keep-isolated", description = "land: the tab stays isolated, its view empty over the landed project "
      + "(by default it goes on as a normal tab).")
  boolean keepIsolated;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Command command = command();
    try (HeadlessTab opening = HeadlessTab.open(directory, main.home(), sessionId, tabId)) {
      Workspace workspace = opening.workspace;
      workspace.onNotice(note -> err.println("waymark: " + note));
      SessionFile file = opening.file;
      boolean looking = command == null || command instanceof Command.List || command instanceof Command.Diff
          || command instanceof Command.Compare;
      String wanted = opening.tabId;
      // only the tab asked for is locked, and the tabs its subagents worked in when it moves (an undo of a turn
      // takes back what its subagents did): the interface may hold the others meanwhile; to look, they come back
      // read-only (a list counts what its subagents changed); a comparison may name any tab of the session: all do
      Set<String> subagents = subagentTabs(file, wanted);
      Workspace.Opened opened = opening.open(looking, command instanceof Command.Compare ? t -> true : subagents::contains,
          err);
      TabSession tab = opening.tab(opened);
      if (command == null) { // rescued [NAME]: only read
        return HeadlessRescued.print(tab.checkpoints(), argument, json, out, err);
      }
      if (command instanceof Command.Diff d && d.checkpoint().isEmpty()) {
        Optional<Integer> isolated = IsolatedTabDiff.print(tab, json, d.stat(), out);
        if (isolated.isPresent()) {
          return isolated.get();
        }
      }
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.subscribe(events::add);
      tab.submit(command);
      tab.idle().get(60, TimeUnit.SECONDS);
      for (var other : opened.tabs()) {
        other.session().idle().get(60, TimeUnit.SECONDS); // the subagents' tabs moving with it
      }
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

  /** The tabs that the subagents of {@code tabId}'s turns worked in, as its checkpoints record them. */
  private static Set<String> subagentTabs(SessionFile file, String tabId) {
    Set<String> found = new HashSet<>();
    file.tabs().stream().filter(t -> t.tabId().equals(tabId)).flatMap(t -> t.checkpoints().stream())
        .forEach(c -> SessionCodec.children(c).forEach(link -> found.add(link.tab())));
    return found;
  }

  private Command command() {
    CommandLine cli = spec.commandLine();
    if (action == null) {
      throw new CommandLine.ParameterException(cli, "Missing required parameter: 'ACTION' (list, diff, undo, redo, goto, "
          + "restore, revert, save, bisect or export).");
    }
    if (force && !List.of("undo", "redo", "goto", "restore", "revert", "save", "rescued").contains(action)) {
      throw new CommandLine.ParameterException(cli, "--force goes with undo, redo, goto, restore, revert or save, not "
          + action + ".");
    }
    if (keepIsolated && !action.equals("land")) {
      throw new CommandLine.ParameterException(cli, "--keep-isolated goes with land, not " + action + ".");
    }
    if (deleteSave != null && !action.equals("save")) {
      throw new CommandLine.ParameterException(cli, "--delete goes with save, not " + action + ".");
    }
    // picocli keeps "--" out of the positional list: the words after the first two are the paths or the scope
    boolean takesMore = action.equals("restore") || action.equals("revert") || action.equals("diff") || action.equals("rescued");
    if (takesMore && more.isEmpty() && spec.commandLine().getParseResult().originalArgs().contains("--")) {
      throw new CommandLine.ParameterException(cli, "Name the files after \"--\": `checkpoints " + action
          + " N -- PATH...`.");
    }
    if (!more.isEmpty() && !takesMore) {
      throw new CommandLine.ParameterException(cli, "`checkpoints " + action + "` takes no more than one argument: "
          + String.join(" ", more) + ".");
    }
    try {
      return switch (action) {
        case "list" -> noArgument(new Command.List());
        case "diff" -> !more.isEmpty() ? CheckpointsDiff.command(cli, argument, more, afterDashes())
            : new Command.Diff(argument == null ? OptionalInt.empty() : OptionalInt.of(number()), stat);
        case "rescued" -> { // null: list or show, read without the tab's queue
          if (more.equals(List.of("restore")) && argument != null) {
            yield new Command.RestoreRescued(argument, force);
          }
          if (!more.isEmpty() || force) {
            throw new CommandLine.ParameterException(cli, "Usage: `checkpoints rescued [NAME [restore [--force]]]`.");
          }
          yield null;
        }
        case "land" -> noArgument(new Command.Land(keepIsolated));
        case "discard" -> noArgument(new Command.Discard());
        case "undo" -> new Command.Undo(argument == null ? OptionalInt.empty() : OptionalInt.of(number()), force);
        case "redo" -> noArgument(new Command.Redo(force));
        case "goto" -> {
          if (argument == null) {
            throw new CommandLine.ParameterException(cli, "`checkpoints goto` needs a checkpoint number or a save name.");
          }
          yield argument.matches("#?\\d+") ? new Command.GoTo(number(), force) : new Command.GoToSaved(argument, force);
        }
        case "save" -> {
          if (deleteSave != null) {
            if (argument != null || force) {
              throw new CommandLine.ParameterException(cli, "Usage: `checkpoints save --delete NAME`.");
            }
            yield new Command.DeleteSave(deleteSave);
          }
          if (argument == null) {
            throw new CommandLine.ParameterException(cli, "`checkpoints save` needs a name.");
          }
          yield new Command.Save(argument, force);
        }
        case "restore" -> {
          if (argument == null) {
            throw new CommandLine.ParameterException(cli,
                "Usage: `checkpoints restore N [files|conversation|both]` or `checkpoints restore N -- PATH...`.");
          }
          if (dashed()) {
            yield new Command.RestoreFiles(number(), more, force);
          }
          if (more.size() > 1) {
            throw new CommandLine.ParameterException(cli, "Restore what? One of files, conversation or both; "
                + "files go after \"--\": `checkpoints restore N -- PATH...`.");
          }
          RestoreScope scope = more.isEmpty() ? RestoreScope.BOTH : switch (more.get(0)) {
            case "files" -> RestoreScope.FILES;
            case "conversation" -> RestoreScope.CONVERSATION;
            case "both" -> RestoreScope.BOTH;
            default -> throw new CommandLine.ParameterException(cli, "Restore what? \"" + more.get(0)
                + "\" is not files, conversation or both; files go after \"--\": `checkpoints restore N -- PATH...`.");
          };
          yield new Command.Restore(number(), scope, force);
        }
        case "revert" -> {
          if (argument == null || !more.isEmpty() && !dashed()) {
            throw new CommandLine.ParameterException(cli, "Usage: `checkpoints revert N[..M] [-- PATH...]`.");
          }
          String[] range = argument.split("\\.\\.", -1);
          if (range.length > 2) {
            throw new NumberFormatException();
          }
          int first = number(range[0]);
          int last = range.length == 2 ? number(range[1]) : first;
          if (last < first) {
            throw new CommandLine.ParameterException(cli, "A range goes from the earlier checkpoint: " + last + ".." + first
                + ", not " + argument + ".");
          }
          yield new Command.Revert(first, last, more, force);
        }
        default -> throw new CommandLine.ParameterException(cli,
            "Unknown action \"" + action + "\": use list, diff, undo, redo, goto, restore, revert or save.");
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
    return number(argument);
  }

  private static int number(String word) {
    String digits = word.startsWith("#") ? word.substring(1) : word;
    return Integer.parseInt(digits);
  }

  /** The positional words given after "--" (picocli drops the "--" itself). */
  private List<String> afterDashes() {
    List<String> raw = spec.commandLine().getParseResult().originalArgs();
    int dashes = raw.indexOf("--");
    return dashes < 0 ? List.of() : more.subList(Math.max(0, more.size() - (raw.size() - dashes - 1)), more.size());
  }

  /** Whether the words after N came after "--" (paths); picocli drops the "--" itself. */
  private boolean dashed() {
    List<String> raw = spec.commandLine().getParseResult().originalArgs();
    return raw.contains("--") && !more.isEmpty();
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
      if (event instanceof Event.ComparisonReady compared) {
        CheckpointsDiff.print(compared.comparison(), json, stat, out);
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
          o.put("summary", r.summary());
          o.put("children", r.children().stream().map(c -> {
            Map<String, Object> child = new LinkedHashMap<>();
            child.put("tab", c.tab());
            child.put("state", c.state().name().toLowerCase(Locale.ROOT));
            child.put("target", c.result().map(f -> f.target()).orElse(null));
            child.put("written", c.result().map(f -> f.written()).orElse(List.of()));
            child.put("deleted", c.result().map(f -> f.deleted()).orElse(List.of()));
            child.put("ownTurns", c.ownTurns());
            child.put("stopped", c.stopped());
            child.put("withdrawn", c.withdrawn());
            return child;
          }).toList());
          out.println(JsonOutput.JSON.writeValueAsString(o));
        } else {
          (r.applied() ? out : err).println(r.applied() ? r.summary() : "waymark: " + r.summary());
        }
        return r.applied() ? 0 : 1;
      }
      if (event instanceof Event.CheckpointSaved saved) {
        if (json) {
          Map<String, Object> o = new LinkedHashMap<>();
          o.put("checkpoint", saved.checkpoint().number());
          o.put("name", saved.name());
          o.put("tag", saved.ref());
          o.put("movedFrom", saved.movedFrom().isPresent() ? saved.movedFrom().getAsInt() : null);
          out.println(JsonOutput.JSON.writeValueAsString(o));
        } else {
          out.println("Saved #" + saved.checkpoint().number() + " as \"" + saved.name() + "\""
              + (saved.movedFrom().isPresent() ? " (moved from #" + saved.movedFrom().getAsInt() + ")" : "") + ": "
              + saved.ref());
        }
        return 0;
      }
      if (event instanceof Event.SaveDeleted deleted) {
        if (json) {
          out.println(JsonOutput.JSON.writeValueAsString(Map.of("deleted", deleted.name(), "checkpoint",
              deleted.checkpoint(), "tag", deleted.ref())));
        } else {
          out.println("Deleted the save \"" + deleted.name() + "\" (" + deleted.ref() + "); #" + deleted.checkpoint()
              + " stays.");
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
      for (CheckpointOutline.Row line : CheckpointOutline.rows(listed.checkpoints(), listed.live())) {
        CheckpointSummary c = line.checkpoint();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("number", c.number());
        row.put("parent", c.parent().orElse(-1)); // as the JSON has always said it of #0
        row.put("depth", line.depth());
        row.put("branch", line.startsBranch());
        row.put("state", line.state().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        row.put("status", c.status().name().toLowerCase(Locale.ROOT));
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
      out.println(JsonOutput.JSON.writeValueAsString(o));
      return;
    }
    out.println("Session " + workspace.label() + ", tab " + tab.checkpoints().tabId() + " (live #" + listed.live() + "):");
    for (CheckpointOutline.Row line : CheckpointOutline.rows(listed.checkpoints(), listed.live())) {
      CheckpointSummary c = line.checkpoint();
      String prompt = c.number() == 0 ? "(start)" : c.prompt().strip().lines().findFirst().orElse("");
      String indent = line.depth() == 0 ? "" : "  ".repeat(line.depth() - 1) + (line.startsBranch() ? "└ " : "  ");
      out.printf("%s%s#%-4d %s  %s%s%s%s%s%n", c.number() == listed.live() ? "▸ " : "  ", indent, c.number(),
          TIME.format(c.created()), prompt.length() > 60 ? prompt.substring(0, 59) + "…" : prompt,
          c.filesChanged() > 0 ? "  " + Counted.of(c.filesChanged(), "file") + " +" + c.added() + " −" + c.removed() : "",
          line.startsBranch() ? "  branch from #" + c.parent().getAsInt() : "",
          switch (line.state()) {
            case LIVE -> "  live";
            case UNDONE -> "  undone (redo)";
            case ABANDONED -> "  abandoned";
            default -> "";
          },
          c.savedNames().isEmpty() ? "" : "  saved: " + String.join(", ", c.savedNames()));
    }
  }

  private void diff(DiffView diff, PrintWriter out) throws Exception {
    if (json) {
      List<Map<String, Object>> files = new ArrayList<>();
      for (DiffView.FileDiff f : diff.files()) {
        files.add(stat ? Map.of("path", f.path(), "added", f.added(), "removed", f.removed(), "binary", f.binary())
            : Map.of("path", f.path(), "added", f.added(), "removed", f.removed(), "binary", f.binary(), "unified", f.unified()));
      }
      out.println(JsonOutput.JSON.writeValueAsString(Map.of("checkpoint", diff.checkpoint(), "isolated", diff.view(),
          "files", files)));
    } else if (diff.isEmpty()) {
      out.println(diff.view() ? "The isolated tab's view holds no changes: it is the project as it is now."
          : "The files on disk are as they were at #" + diff.checkpoint() + ".");
    } else if (stat) {
      out.print(CheckpointsDiff.stat(diff.files().stream()
          .map(f -> new CheckpointsDiff.StatRow(f.path(), f.added(), f.removed(), f.binary())).toList()));
      out.flush();
    } else {
      out.print(diff.unified());
      out.flush();
    }
  }
}
