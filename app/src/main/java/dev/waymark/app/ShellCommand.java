package dev.waymark.app;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.ViewShell;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.wording.Wording;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code waymark shell}: the user's shell, sandboxed as a command is, inside an isolated tab's
 * view (mounted at the project's path); what the user changes there is recorded in the tab as one
 * checkpoint when the shell ends, however it ends (see {@link ViewShell}).
 */
@CommandLine.Command(name = "shell", mixinStandardHelpOptions = true,
    description = {"Open your shell inside an isolated tab's view of the project, sandboxed like its commands; what you "
        + "change there is recorded in the tab as one checkpoint when the shell ends (none when nothing changed).",
        "Exit status: the shell's; 1 when the tab is not isolated or the view cannot be entered."})
final class ShellCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  @Option(names = "--session", paramLabel = "ID", description = "The session (id or name; default: the latest).")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", description = "The isolated tab (default: asked, from the session's tabs).")
  String tabId;

  @Option(names = "--name", paramLabel = "TEXT", description = "The checkpoint's label (default: shell: and your last command).")
  String name;

  @Option(names = "--with-api-keys", description = "Pass the provider API keys to the shell (left out by default, as for "
      + "the agent's commands).")
  boolean withKeys;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Map<String, String> env = main.env();
    Settings settings;
    try {
      settings = Settings.resolve(env, directory.toAbsolutePath()).settings();
    } catch (Settings.BadSettings e) {
      err.println("waymark: " + e.getMessage());
      return 2;
    }
    if (name != null && name.isBlank()) {
      err.println("waymark: --name needs a label.");
      return 2;
    }
    ShellSandbox sandbox = settings.sandbox(main.home(), env);
    try (HeadlessTab session = HeadlessTab.open(directory, main.home(), sessionId, null)) {
      Optional<HeadlessTab> chosen = tabId != null ? Optional.of(session.withTab(tabId)) : ShellTabs.choose(session, main.stdin(), err);
      if (chosen.isEmpty()) {
        return 2;
      }
      HeadlessTab opening = chosen.get();
      TabSession tab = opening.openTab(false, err);
      if (tab.checkpoints().viewDirectory().isEmpty()) {
        err.println("waymark: tab " + opening.tabId + " is not isolated: `waymark shell` enters an isolated tab's view "
            + "(`/tab isolated` in the interface, or `waymark exec --isolated`, opens one).");
        return 1;
      }
      if (!sandbox.confines()) {
        err.println("waymark: `waymark shell` runs in the sandbox, which cannot start here: " + sandbox.unavailable());
        return 1;
      }
      Map<String, String> environment = new HashMap<>(env);
      if (!withKeys) {
        environment.keySet().removeAll(settings.toolSettings().withheldVariables()); // as for the agent's commands
      }
      String title = opening.file.tabs().stream().filter(t -> t.tabId().equals(opening.tabId)).map(SessionFile.Tab::title)
          .findFirst().orElse("");
      try (ShellStart start = ShellStart.prepare(opening.tabId, environment)) {
        err.println(ShellStart.banner(opening.tabId, title, opening.store.projectDirectory(), withKeys));
        err.flush();
        ViewShell.Setup setup = new ViewShell.Setup(start.argv(), start.environment(), List.of(start.directory()),
            settings.toolSettings().maxFileSize(), ShellStart.script(env), () -> Wording.shellLabel(Optional.ofNullable(name),
                start.lastCommand()));
        return run(ViewShell.start(tab, opening.store.projectDirectory(), sandbox, setup), tab, opening, err, start::close);
      }
    } catch (SessionException | CheckpointException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Waits for the shell, then records, saves and cleans up; the same when Waymark is told to stop
   * (SIGTERM, SIGHUP) meanwhile.
   */
  private static int run(ViewShell shell, TabSession tab, HeadlessTab opening, PrintWriter err, Runnable cleanUp)
      throws Exception {
    Terminal terminal = Terminal.held();
    Object once = new Object();
    ViewShell.Ended[] ended = new ViewShell.Ended[1];
    Runnable finish = () -> {
      synchronized (once) {
        if (ended[0] == null) {
          ended[0] = shell.end();
          terminal.restore(); // a shell stopped mid-line may leave it raw
          err.println(ended(ended[0]));
          save(tab, opening, err);
          err.flush();
          cleanUp.run(); // a stopped Waymark runs no more than this
        }
      }
    };
    Thread onStop = new Thread(finish, "waymark-shell-stop");
    Runtime.getRuntime().addShutdownHook(onStop);
    try (Terminal.Quiet quiet = Terminal.ignoreInterrupts(); Terminal.Quiet resizes = Terminal.relayResizes(shell.process())) {
      shell.process().waitFor();
      finish.run();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(onStop);
    } catch (IllegalStateException stopping) {
      // the hook runs or ran: it did the same
    }
    return ended[0].status() < 0 ? 1 : ended[0].status();
  }

  private static String ended(ViewShell.Ended ended) {
    WorkTreeChanges changes = ended.changes();
    StringBuilder said = new StringBuilder();
    if (ended.checkpoint().isEmpty()) {
      said.append("waymark: nothing changed in the view: no checkpoint made.");
    } else {
      int files = changes.recorded().size();
      said.append("waymark: ").append(files).append(files == 1 ? " file" : " files").append(" changed in the view, ")
          .append("recorded as checkpoint #").append(ended.checkpoint().getAsInt()).append(" (").append(ended.label())
          .append("); `waymark checkpoints undo` takes ").append(files == 1 ? "it" : "them").append(" back.");
    }
    changes.skipped().forEach(s -> said.append("\nwaymark: not recorded: ").append(s.path()).append(" (").append(s.reason())
        .append(')'));
    return said.toString();
  }

  private static void save(TabSession tab, HeadlessTab opening, PrintWriter err) {
    try {
      tab.idle().get(10, TimeUnit.SECONDS);
      String told = opening.workspace.save(null);
      if (!told.startsWith("Saved session")) {
        err.println("waymark: " + told);
      }
    } catch (Exception e) {
      err.println("waymark: the session could not be saved: " + e.getMessage());
    }
  }
}
