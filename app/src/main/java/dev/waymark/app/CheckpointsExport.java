package dev.waymark.app;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ExportView;
import dev.waymark.core.session.SessionException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code waymark checkpoints export --branch NAME [--squash] [--force] [A..B]}: the path from A to
 * B of a tab (default: {@code #0} to live) as commits on a new branch of the project's own git
 * repository, one per checkpoint that changed files with its prompt as the message, or one. Only
 * objects and that branch are written: HEAD, the index and the work tree stay as they are. It only
 * reads the tab, so it works while the interface holds it.
 */
@CommandLine.Command(name = "export", mixinStandardHelpOptions = true,
    description = {"Write the path A..B of a tab's checkpoints (default: #0..live) as commits on a new branch of the "
        + "project's git repository; HEAD, the index and the work tree are left as they are.",
        "Exit status: 0 written, 1 refused or failed, 2 bad arguments."})
final class CheckpointsExport implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand CheckpointsCommand parent;

  @Parameters(index = "0", arity = "0..1", paramLabel = "A..B",
      description = "The path: from A (not included) to B, each N, live or a save's name; A.. ends at live, ..B starts at #0.")
  String range;

  @Option(names = "--branch", required = true, paramLabel = "NAME", description = "The branch to make (refs/heads/NAME).")
  String branch;

  @Option(names = "--squash", description = "One commit for the whole path, its message listing the prompts.")
  boolean squash;

  @Option(names = "--force", description = "Replace a branch of that name (never the one checked out).")
  boolean force;

  @Option(names = "--session", paramLabel = "ID", description = "The session (id or name; default: the last saved).")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", description = "The tab (default: the session's active tab).")
  String tabId;

  @Option(names = "--json", description = "Print JSON for scripts.")
  boolean json;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Command.Export command = command();
    // what was given before "export" (checkpoints -C DIR --session S export ...) counts as given after it
    Path dir = directory != null ? directory : parent.directory;
    String sessionId = this.sessionId != null ? this.sessionId : parent.sessionId;
    String tabId = this.tabId != null ? this.tabId : parent.tabId;
    try (HeadlessTab opening = HeadlessTab.open(dir, parent.main.home(), sessionId, tabId)) {
      TabSession tab = opening.openTab(true, err); // read-only: the tab is not changed
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.subscribe(events::add);
      tab.submit(command);
      tab.idle().get(120, TimeUnit.SECONDS);
      Event event;
      while ((event = events.poll()) != null) {
        if (event instanceof Event.Error error) {
          err.println("waymark: " + error.message());
          return 1;
        }
        if (event instanceof Event.Exported exported) {
          print(exported.export(), out);
          return 0;
        }
      }
      err.println("waymark: the tab gave no answer.");
      return 1;
    } catch (SessionException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  private Command.Export command() {
    CheckpointRef from = null;
    CheckpointRef to = null;
    try {
      if (range != null) {
        int dots = range.indexOf("..");
        if (dots < 0) {
          throw new IllegalArgumentException("A path is A..B (A.. ends at live, ..B starts at #0), not \"" + range + "\".");
        }
        String a = range.substring(0, dots);
        String b = range.substring(dots + 2);
        from = a.isEmpty() ? null : CheckpointRef.parse(a);
        to = b.isEmpty() ? null : CheckpointRef.parse(b);
        if (from != null && !from.tab().isEmpty() || to != null && !to.tab().isEmpty()) {
          throw new IllegalArgumentException("An export follows one tab: pick it with --tab, not TAB: in the path.");
        }
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return new Command.Export(from, to, branch, squash, force);
  }

  private void print(ExportView export, PrintWriter out) throws Exception {
    if (json || parent.json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("branch", export.branch());
      o.put("base", export.base().orElse(null));
      o.put("replaced", export.replaced().orElse(null));
      List<Map<String, Object>> commits = new ArrayList<>();
      for (ExportView.Commit c : export.commits()) {
        Map<String, Object> commit = new LinkedHashMap<>();
        commit.put("id", c.id());
        commit.put("checkpoints", c.checkpoints());
        commit.put("subject", c.subject());
        commit.put("files", c.files());
        commits.add(commit);
      }
      o.put("commits", commits);
      o.put("skipped", export.skipped());
      o.put("ignored", export.ignored());
      out.println(JsonOutput.JSON.writeValueAsString(o));
      return;
    }
    out.println(export.summary());
  }
}
