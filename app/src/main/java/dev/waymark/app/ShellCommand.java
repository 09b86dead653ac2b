package dev.waymark.app;

import dev.waymark.core.Counted;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.workspace.Workspace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code waymark shell --session S --tab T}: the user's shell, sandboxed as a command is, inside an
 * isolated tab's view (mounted at the project's path); what the user changes there is recorded in
 * the tab as one checkpoint when the shell exits.
 */
@CommandLine.Command(name = "shell", mixinStandardHelpOptions = true,
    description = {"Open your shell inside an isolated tab's view of the project, sandboxed like its commands; what you "
        + "change there is recorded in the tab as one checkpoint when the shell exits.",
        "Exit status: the shell's; 1 when the tab is not isolated or the view cannot be entered."})
final class ShellCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  @Option(names = "--session", paramLabel = "ID", required = true, description = "The session (id or name).")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", required = true, description = "The isolated tab.")
  String tabId;

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
    ShellSandbox sandbox = settings.sandbox(main.home(), env);
    try (HeadlessTab opening = HeadlessTab.open(directory, main.home(), sessionId, tabId)) {
      Workspace workspace = opening.workspace;
      TabSession tab = opening.openTab(false, err);
      CheckpointTree tree = tab.checkpoints();
      if (tree.viewDirectory().isEmpty()) {
        err.println("waymark: tab " + tabId + " is not isolated: `waymark shell` enters an isolated tab's view.");
        return 1;
      }
      int status = run(tree, sandbox, opening.store.projectDirectory(), env, err);
      tab.treeChanged(); // the checkpoint was made on the tree, not by a turn of the tab's: the session is saved with it
      tab.idle().get(10, TimeUnit.SECONDS);
      String told = workspace.save(null);
      if (!told.startsWith("Saved session")) {
        err.println("waymark: " + told);
      }
      return status;
    } catch (SessionException | CheckpointException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  /** Runs the user's shell in the view, as a checkpoint of the tab's; returns its exit status. */
  private static int run(CheckpointTree tree, ShellSandbox sandbox, Path project, Map<String, String> env, PrintWriter err)
      throws Exception {
    String shell = env.getOrDefault("SHELL", "/bin/sh");
    Turn turn = tree.begin();
    try {
      Turn.ShellCapture capture = turn.shellCapture(sandbox.bwrap());
      CommandMark mark = CommandMark.random();
      WorkTreeSnapshot before = turn.snapshotWorkTree(capture.capture(), Long.MAX_VALUE, mark);
      ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of(shell), project, false);
      ProcessBuilder builder = new ProcessBuilder(before.enter(wrapped.argv())).inheritIO().directory(project.toFile());
      builder.environment().put(CommandMark.VARIABLE, mark.value());
      int status = builder.start().waitFor();
      WorkTreeChanges changes = before.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
      wrapped.removePlaceholders();
      err.println("waymark: " + Counted.of(changes.recorded().size(), "file change") + " in the view recorded as checkpoint #"
          + turn.number() + ".");
      turn.finish(CheckpointStatus.DONE);
      return status;
    } catch (RuntimeException e) {
      turn.finish(CheckpointStatus.FAILED);
      throw e;
    }
  }
}
