package dev.waymark.core.hook;

import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.wording.Wording;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one hook: {@code bash -c COMMAND} in the project, the event's JSON on standard input,
 * standard output and error kept apart, the whole process tree killed at the hook's timeout.
 *
 * <p>Run during a turn, the hook's file changes are recorded in the turn's checkpoint as a shell
 * command's are: where a copy-on-write layer can be had, the hook runs in one, entered through
 * {@code bwrap} with the whole file system bound as it is (the hook is the user's own program: no
 * other limit of the sandbox, network and home as usual), and its layer is applied and recorded
 * when it ends; elsewhere it takes the project's command slot and is captured by comparing the
 * project before and after it. Either way, where there is a {@code bwrap}, the hook runs in a pid
 * namespace of its own, so that nothing it starts outlives it, its turn or Waymark.
 */
public final class HookRunner {
  private static final Logger LOG = LoggerFactory.getLogger(HookRunner.class);
  private static final String SHELL = Files.isExecutable(Path.of("/bin/bash")) ? "/bin/bash" : "/bin/sh";
  /** Output kept of each stream: a hook's answer is short; more is cut, never waited on. */
  private static final int MAX_OUTPUT = 1 << 20;
  /** How long to wait for output still in the pipes after the hook ended or was killed. */
  private static final long DRAIN_MILLIS = 1_000;
  /** How long killed processes are waited for, so none writes after the hook's changes are taken. */
  private static final long KILL_WAIT_MILLIS = 2_000;

  private final Optional<Path> bwrap;
  private final long maxFileSize;

  /**
   * @param bwrap the {@code bwrap} to enter a layer with; empty: hooks are captured by comparison
   * @param maxFileSize bytes: larger files a hook changes are listed, not recorded
   */
  public HookRunner(Optional<Path> bwrap, long maxFileSize) {
    this.bwrap = bwrap;
    this.maxFileSize = maxFileSize;
  }

  /** A hook's run and what it changed (nothing without a turn to record in). */
  public record Ran(HookOutcome outcome, Optional<WorkTreeChanges> changes) {}

  /**
   * Runs {@code hook} with {@code input} on its standard input, recording its changes in {@code turn} when there is
   * one; {@code cancellation} (Esc) stops it as its timeout would.
   */
  public Ran run(HookCommand hook, String input, Path project, Optional<Turn> turn, Cancellation cancellation) {
    List<String> shell = List.of(SHELL, "-c", hook.command());
    try {
      if (turn.isEmpty()) {
        return new Ran(start(hook, alone(project, shell), input, project, CommandMark.random(), cancellation), Optional.empty());
      }
      return captured(hook, shell, input, project, turn.get(), cancellation);
    } catch (IOException | RuntimeException e) {
      LOG.warn("hook {} failed", hook.command(), e);
      return new Ran(new HookOutcome(hook, -1, "", "", Optional.of("could not run: " + e.getMessage())), Optional.empty());
    }
  }

  private Ran captured(HookCommand hook, List<String> shell, String input, Path project, Turn turn,
      Cancellation cancellation) throws IOException {
    Turn.ShellCapture chosen = turn.shellCapture(bwrap);
    CommandCapture capture = chosen.capture();
    CommandSlot.Held slot = null;
    if (capture.takesTurns() && !turn.insideACommandOnThisProject()) {
      try {
        slot = turn.commandSlot().take(hook.timeout().toMillis()).orElse(null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (slot == null) {
        return new Ran(new HookOutcome(hook, -1, "", "", Optional.of("was not run: another shell command held the "
            + "project for the hook's whole timeout")), Optional.empty());
      }
    }
    try (CommandSlot.Held held = slot) {
      CommandMark mark = CommandMark.random();
      WorkTreeSnapshot snapshot;
      try {
        snapshot = turn.snapshotWorkTree(capture, maxFileSize, mark);
      } catch (CheckpointException e) {
        return new Ran(new HookOutcome(hook, -1, "", "", Optional.of("was not run: " + Wording.whyNotRun(capture.way(), e))),
            Optional.empty());
      }
      List<String> argv = chosen.noLayer().isEmpty() ? snapshot.enter(unconfined(bwrap.orElseThrow(), project, shell))
          : alone(project, shell);
      HookOutcome outcome = start(hook, argv, input, project, mark, cancellation);
      try {
        WorkTreeChanges changes = snapshot.recordChanges(new CommandCapture.Ended(List.of(), List::of));
        return new Ran(outcome, Optional.of(changes));
      } catch (CheckpointException e) {
        LOG.warn("could not record the changes of hook {}", hook.command(), e);
        return new Ran(outcome, Optional.empty());
      }
    }
  }

  /**
   * {@code bwrap} that only carries the hook into its layer, or into a pid namespace of its own: everything bound as
   * it is, writable as the user may; {@code /dev} made anew, as the host's device nodes cannot be opened from the
   * layer's user namespace. What the hook starts, even out of its session and environment ({@code setsid env -i}),
   * ends with it, and with Waymark ({@code --die-with-parent}); so a hook cannot signal processes outside it.
   */
  private static List<String> unconfined(Path bwrap, Path project, List<String> shell) {
    List<String> argv = new ArrayList<>(List.of(bwrap.toString(), "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--unshare-pid", "--die-with-parent", "--chdir", project.toString(), "--"));
    argv.addAll(shell);
    return argv;
  }

  /** A hook run outside a layer: in a pid namespace of its own where there is a {@code bwrap}, else as it is. */
  private List<String> alone(Path project, List<String> shell) {
    return bwrap.map(b -> unconfined(b, project, shell)).orElse(shell);
  }

  private static HookOutcome start(HookCommand hook, List<String> argv, String input, Path project, CommandMark mark,
      Cancellation cancellation) throws IOException {
    if (cancellation.isCancelled()) {
      return new HookOutcome(hook, -1, "", "", Optional.of("was not run: the turn was interrupted"));
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(project.toFile());
    // where Claude Code's hooks find the project (its settings write "$CLAUDE_PROJECT_DIR"/.claude/hooks/...)
    builder.environment().put("CLAUDE_PROJECT_DIR", project.toString());
    builder.environment().put("WAYMARK_PROJECT_DIR", project.toString());
    builder.environment().keySet().removeIf(name -> name.startsWith("WAYMARK_UTF8_"));
    builder.environment().put(CommandMark.VARIABLE, mark.value());
    Process process = builder.start();
    AtomicBoolean interrupted = new AtomicBoolean();
    cancellation.onCancel(() -> {
      if (process.isAlive()) {
        interrupted.set(true);
        List<ProcessHandle> tree = new ArrayList<>(List.of(process.toHandle()));
        tree.addAll(mark.processes());
        CommandMark.stop(tree, 0);
      }
    });
    Drain out = new Drain(process.getInputStream());
    Drain err = new Drain(process.getErrorStream());
    try (OutputStream stdin = process.getOutputStream()) {
      stdin.write(input.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      LOG.debug("hook {} did not read its input: {}", hook.command(), e.toString()); // it need not
    }
    boolean ended;
    try {
      ended = process.waitFor(hook.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ended = false;
    }
    // what it left running would write after its changes were taken, and hold its output open: a hook ends whole
    List<ProcessHandle> left = new ArrayList<>(List.of(process.toHandle()));
    left.addAll(mark.processes());
    CommandMark.stop(left.stream().filter(ProcessHandle::isAlive).toList(), KILL_WAIT_MILLIS);
    out.join();
    err.join();
    if (interrupted.get()) {
      return new HookOutcome(hook, -1, out.text(), err.text(), Optional.of("was stopped: the turn was interrupted"));
    }
    if (!ended) {
      return new HookOutcome(hook, -1, out.text(), err.text(), Optional.of("was stopped at its timeout of "
          + hook.timeout().toSeconds() + " s"));
    }
    return new HookOutcome(hook, process.exitValue(), out.text(), err.text(), Optional.empty());
  }

  /** Reads one stream of the hook, up to {@link #MAX_OUTPUT}, on a thread of its own. */
  private static final class Drain {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final Thread thread;

    Drain(InputStream in) {
      thread = new Thread(() -> {
        byte[] buffer = new byte[8192];
        try (in) {
          for (int n; (n = in.read(buffer)) >= 0;) {
            synchronized (bytes) {
              if (bytes.size() < MAX_OUTPUT) {
                bytes.write(buffer, 0, Math.min(n, MAX_OUTPUT - bytes.size()));
              }
            }
          }
        } catch (IOException e) {
          LOG.debug("a hook's output ended: {}", e.toString());
        }
      }, "waymark-hook-output");
      thread.setDaemon(true);
      thread.start();
    }

    void join() {
      try {
        thread.join(DRAIN_MILLIS); // a child it left may hold the pipe: what came so far is the answer
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    String text() {
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
