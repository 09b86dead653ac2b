package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.wording.Wording;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * The user's own shell in an isolated tab's view ({@code waymark shell}), sandboxed as the tab's
 * commands are, with the view mounted at the project's path. Where {@code script} (util-linux) is
 * found, the shell runs on a terminal of its own inside the sandbox: it has job control, Ctrl+C
 * reaches its foreground job and never Waymark, and nothing in it can type into the user's
 * terminal. Every process in it ends with it, before what it changed is read, so nothing writes in
 * the view after its checkpoint. {@link #end} records that once, however the shell ended (exit,
 * Ctrl+D, a signal to Waymark): one checkpoint of the tab, labelled, or none when nothing changed.
 */
public final class ViewShell {
  /** How long the shell's processes are given to end once it has. */
  private static final long STOP_MILLIS = 2_000;

  /**
   * How the shell ended: its exit status (-1 when it was stopped), the checkpoint that holds what
   * it changed (empty when nothing changed), those changes, and the checkpoint's label.
   */
  public record Ended(int status, OptionalInt checkpoint, WorkTreeChanges changes, String label) {}

  /** What the shell is: its command line, its environment, what is writable in it, and the label its checkpoint gets. */
  public record Setup(List<String> shell, Map<String, String> environment, List<Path> shared, long maxFileSize,
      Optional<Path> terminal, Supplier<String> label) {
    public Setup {
      shell = List.copyOf(shell);
      environment = Map.copyOf(environment);
      shared = List.copyOf(shared);
    }
  }

  private final TabSession tab;
  private final Turn turn;
  private final WorkTreeSnapshot before;
  private final CommandMark mark;
  private final ShellSandbox.Wrapped wrapped;
  private final Process process;
  private final Supplier<String> label;
  private Ended ended; // guarded by this

  private ViewShell(TabSession tab, Turn turn, WorkTreeSnapshot before, CommandMark mark, ShellSandbox.Wrapped wrapped,
      Process process, Supplier<String> label) {
    this.tab = tab;
    this.turn = turn;
    this.before = before;
    this.mark = mark;
    this.wrapped = wrapped;
    this.process = process;
    this.label = label;
  }

  /**
   * Starts the shell in {@code tab}'s view of {@code project}, its standard streams Waymark's own. A
   * {@link CheckpointException} when the tab is not isolated or its view cannot be entered.
   */
  public static ViewShell start(TabSession tab, Path project, ShellSandbox sandbox, Setup setup) throws IOException {
    CheckpointTree tree = tab.checkpoints();
    if (tree.viewDirectory().isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "tab " + tab.tabId() + " is not isolated");
    }
    Turn turn = tree.begin();
    try {
      Turn.ShellCapture capture = turn.shellCapture(sandbox.bwrap());
      CommandMark mark = CommandMark.random();
      WorkTreeSnapshot before = turn.snapshotWorkTree(capture.capture(), setup.maxFileSize(), mark);
      ShellSandbox.Wrapped wrapped = sandbox.wrapTied(onATerminal(setup.shell(), setup.terminal()), project, setup.shared());
      ProcessBuilder builder = new ProcessBuilder(before.enter(wrapped.argv())).inheritIO().directory(project.toFile());
      builder.environment().clear();
      builder.environment().putAll(setup.environment());
      builder.environment().put(CommandMark.VARIABLE, mark.value());
      return new ViewShell(tab, turn, before, mark, wrapped, builder.start(), setup.label());
    } catch (IOException | RuntimeException e) {
      turn.finish(CheckpointStatus.FAILED);
      throw e;
    }
  }

  /**
   * {@code shell} run by {@code script} on a terminal of its own, which relays the user's: the
   * shell leads a session on it, so it has job control, and its Ctrl+C stays in it; without
   * {@code script}, the shell as it is (in the sandbox's session of its own: no job control).
   */
  static List<String> onATerminal(List<String> shell, Optional<Path> script) {
    if (script.isEmpty()) {
      return shell;
    }
    StringBuilder command = new StringBuilder("exec");
    shell.forEach(part -> command.append(" '").append(part.replace("'", "'\\''")).append('\''));
    // script runs the line with $SHELL -c: sh, whatever the user's shell is, so that the quoting holds
    return List.of("/usr/bin/env", "SHELL=/bin/sh", script.get().toString(), "-qfec", command.toString(), "/dev/null");
  }

  /** The shell's process, to wait on. */
  public Process process() {
    return process;
  }

  /**
   * Ends the shell if it still runs, stops every process it left, records what it changed in the
   * view as its checkpoint (withdrawn when nothing changed) and labels it; once, whoever calls.
   */
  public synchronized Ended end() {
    if (ended != null) {
      return ended;
    }
    int status = process.isAlive() ? -1 : process.exitValue();
    List<ProcessHandle> left = new ArrayList<>(List.of(process.toHandle()));
    left.addAll(mark.processes());
    CommandMark.stop(left.stream().filter(ProcessHandle::isAlive).toList(), STOP_MILLIS);
    WorkTreeChanges changes;
    try {
      changes = before.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
    } catch (RuntimeException e) {
      turn.finish(CheckpointStatus.FAILED);
      throw e;
    } finally {
      wrapped.removePlaceholders();
    }
    if (turn.withdrawIfEmpty()) {
      ended = new Ended(status, OptionalInt.empty(), changes, "");
      return ended;
    }
    turn.finish(CheckpointStatus.DONE);
    String named = label.get();
    tab.recordedOutside(turn.number(), named, Wording.shellNote(changes));
    ended = new Ended(status, OptionalInt.of(turn.number()), changes, named);
    return ended;
  }
}
