package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.CheckpointException;
import dev.waymark.core.checkpoint.CommandMark;
import dev.waymark.core.checkpoint.CommandSlot;
import dev.waymark.core.checkpoint.FileChange;
import dev.waymark.core.checkpoint.FileKind;
import dev.waymark.core.checkpoint.WorkTreeChanges;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code run_shell}: runs a command with {@code bash -c} (or {@code sh -c}) in the project root,
 * stdin closed, output and errors merged and capped, under a timeout.
 *
 * <p>A command's file changes cannot be seen as it makes them, so they are found afterwards: a
 * {@link WorkTreeSnapshot} is taken just before the command (stat every file; store the few whose
 * stat changed since the store last saw them) and compared just after. Every created, changed or
 * deleted file is recorded in the running checkpoint with its content before and after, so undo
 * restores it; what could not be recorded (too big, ignored, excluded) is listed in the result.
 *
 * <p>Timeout and cancellation kill the whole process tree (its descendants first, so none are
 * left behind to be reparented), and what the command changed until then is still recorded.
 */
final class RunShellTool extends AbstractTool {
  private static final Logger LOG = LoggerFactory.getLogger(RunShellTool.class);
  private static final List<String> SHELL = findShell();
  /** How long to wait for output still in the pipe after the command ended or was killed. */
  private static final long DRAIN_MILLIS = 1_000;

  RunShellTool(ToolSettings settings) {
    super("run_shell",
        "Run a shell command (bash -c) in the project root, with stdin closed. Returns the exit code and the "
            + "combined stdout and stderr (long output keeps its start and end). Files the command creates, "
            + "changes or deletes are recorded so the user can undo them. Default timeout "
            + settings.shellTimeout().toMillis() + " ms. Do not start interactive programs or servers that never exit.",
        new Args.Schema()
            .string("command", "The command line to run", true)
            .integer("timeout_ms", "Timeout in milliseconds (default " + settings.shellTimeout().toMillis()
                + ", at most " + settings.shellMaxTimeout().toMillis() + ")", false),
        ToolKind.SHELL, settings);
  }

  @Override
  String summary(Args args) throws ToolError {
    return args.string("command");
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String command = args.string("command");
    if (command.isBlank()) {
      return ToolResult.error("The command is empty.");
    }
    long timeoutMs = args.optionalLong("timeout_ms", 1, Long.MAX_VALUE).orElse(settings.shellTimeout().toMillis());
    String capNote = "";
    if (timeoutMs > settings.shellMaxTimeout().toMillis()) {
      timeoutMs = settings.shellMaxTimeout().toMillis();
      capNote = "[timeout_ms capped at " + timeoutMs + "]\n";
    }
    if (context.cancellation().isCancelled()) {
      return ToolResult.error("Cancelled before the command started.");
    }
    Path root = ProjectPaths.of(context.projectRoot()).root();
    CommandSlot.Held slot = null;
    long waitedFrom = System.nanoTime();
    String waitedFor = "";
    if (context.turn() != null && !context.turn().insideACommandOnThisProject()) {
      CommandSlot slots = context.turn().commandSlot();
      long deadline = waitedFrom + TimeUnit.MILLISECONDS.toNanos(timeoutMs); // the wait counts against the timeout
      try {
        while (slot == null) {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          if (context.cancellation().isCancelled() || left <= 0) {
            String holder = slots.holder().map(h -> " (" + h.described() + ")").orElse("");
            return ToolResult.error(context.cancellation().isCancelled()
                ? "Cancelled while waiting for another shell command on this project" + holder + " to finish."
                : "The command was not run: another shell command on this project" + holder + " held the project for "
                    + "the whole timeout of " + timeoutMs + " ms. Commands do not overlap, so that each one's files are "
                    + "its own.");
          }
          slot = slots.take(Math.min(SLOT_POLL_MILLIS, left)).orElse(null);
          if (slot == null && waitedFor.isEmpty()) {
            waitedFor = slots.holder().map(h -> " (" + h.described() + ")").orElse("");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ToolResult.error(CANCELLED_WAITING);
      }
    }
    long waited = (System.nanoTime() - waitedFrom) / 1_000_000;
    try (CommandSlot.Held held = slot) {
      // a wait worth saying counts against the timeout; a shorter one (taking the slot) does not change the figure said
      long left = waited < WAIT_WORTH_SAYING_MILLIS ? timeoutMs : Math.max(1, timeoutMs - waited);
      return run(context, command, left, capNote, root, waited, waitedFor);
    }
  }

  private static final String CANCELLED_WAITING = "Cancelled while waiting for another shell command on this project to finish.";
  /** Waits are checked for cancellation this often. */
  private static final long SLOT_POLL_MILLIS = 200;
  /** A wait for another command longer than this is said in the result. */
  private static final long WAIT_WORTH_SAYING_MILLIS = 1_000;

  /** Runs the command, holding the slot; {@code notes} start its result. */
  private ToolResult run(ToolContext context, String command, long timeoutMs, String notes, Path root, long waitedMillis,
      String waitedFor) throws IOException {
    WorkTreeSnapshot snapshot = null;
    CommandMark mark = CommandMark.random();
    if (context.turn() != null) {
      try {
        snapshot = context.turn().snapshotWorkTree(settings.maxFileSize(), mark);
      } catch (CheckpointException e) {
        return ToolResult.error("The command was not run: its file changes could not be made undoable ("
            + e.getMessage() + ").");
      }
    }
    if (waitedMillis >= WAIT_WORTH_SAYING_MILLIS) {
      notes = "[waited " + (waitedMillis + 500) / 1000 + " s for another shell command on this project" + waitedFor
          + " to finish: "
          + "commands do not overlap, so each one's files are its own]\n" + notes;
    }

    Run run = Run.start(SHELL, command, root, settings.shellMaxOutputBytes(), settings.withheldVariables(), mark);
    AtomicBoolean cancelled = new AtomicBoolean();
    context.cancellation().onCancel(() -> {
      if (run.process.isAlive()) {
        cancelled.set(true);
        killTree(run.process);
      }
    });
    boolean timedOut = false;
    try {
      if (!run.process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
        timedOut = !cancelled.get();
        killTree(run.process);
        run.process.waitFor(DRAIN_MILLIS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      killTree(run.process);
      Thread.currentThread().interrupt();
      cancelled.set(true);
    }
    boolean drained = run.drain(DRAIN_MILLIS);

    StringBuilder out = new StringBuilder(notes);
    String output = run.output.text();
    out.append(output.isEmpty() ? "(no output)\n" : output.endsWith("\n") ? output : output + "\n");
    if (!drained) {
      out.append("[a background process still holds the output open; later output is not shown]\n");
    }
    boolean failed;
    if (cancelled.get()) {
      out.append("[cancelled: the command and its child processes were killed]\n");
      failed = true;
    } else if (timedOut) {
      out.append("[timed out after ").append(timeoutMs).append(" ms: the command and its child processes were killed]\n");
      failed = true;
    } else {
      int exit = run.process.exitValue();
      out.append("[exit code ").append(exit).append("]\n");
      failed = exit != 0;
    }
    if (snapshot != null) {
      try {
        WorkTreeChanges changes = snapshot.recordChanges(); // kept under the tag now, not only when the turn ends
        describe(changes, out);
        List<ProcessHandle> left = stillRunning(run);
        if (!left.isEmpty()) {
          snapshot.leftRunning(left);
          out.append("[").append(left.size()).append(" background process(es) still running; the files they change "
              + "are recorded at the next command or when the turn ends]\n");
        }
      } catch (CheckpointException e) {
        LOG.warn("could not record the changes of {}", command, e);
        out.append("[could not record the files this command changed: ").append(e.getMessage())
            .append("; undo will not restore them]\n");
      }
    }
    return failed ? ToolResult.error(out.toString()) : ToolResult.ok(out.toString());
  }

  /** Appends what the command changed: recorded changes, then what was left out. */
  static void describe(WorkTreeChanges changes, StringBuilder out) {
    if (!changes.recorded().isEmpty()) {
      out.append("Files changed (recorded; undo restores them):\n");
      for (FileChange change : changes.recorded()) {
        out.append("  ").append(verb(change)).append(' ').append(change.path()).append('\n');
      }
    }
    if (!changes.skipped().isEmpty()) {
      out.append("Changed but not recorded (undo will not restore them):\n");
      for (WorkTreeChanges.Skipped skipped : changes.skipped()) {
        out.append("  ").append(skipped.path()).append(": ").append(skipped.reason()).append('\n');
      }
    }
  }

  private static String verb(FileChange change) {
    if (!change.before().exists()) {
      return change.after().kind() == FileKind.SYMLINK ? "created link" : "created";
    }
    if (!change.after().exists()) {
      return "deleted";
    }
    if (change.before().blob().equals(change.after().blob())) {
      return change.after().kind() == FileKind.EXECUTABLE ? "made executable"
          : change.before().kind() == FileKind.EXECUTABLE ? "made not executable" : "changed kind of";
    }
    return "modified";
  }

  /**
   * Processes the command started that outlive it (jobs sent to the background, daemons): those
   * of the session it leads (started with {@code setsid}), which a job stays in whatever it does to
   * its environment, and those that carry the command's mark in their environment (one that
   * started a session of its own). Both survive being re-parented. Where {@code /proc} is not
   * readable, the command's remaining descendants.
   */
  private static List<ProcessHandle> stillRunning(Run run) {
    if (!CommandMark.findable()) {
      return run.process.descendants().filter(ProcessHandle::isAlive).toList();
    }
    java.util.Map<Long, ProcessHandle> found = new java.util.LinkedHashMap<>();
    if (run.sessionLeader) {
      CommandMark.inSession(run.process.pid()).forEach(p -> found.put(p.pid(), p));
    }
    run.mark.processes().forEach(p -> found.putIfAbsent(p.pid(), p));
    found.remove(run.process.pid());
    return List.copyOf(found.values());
  }

  /** {@code setsid}, which starts the command as the leader of a session of its own; empty where there is none. */
  private static final java.util.Optional<String> SETSID = java.util.stream.Stream.of("/usr/bin/setsid", "/bin/setsid")
      .filter(candidate -> Files.isExecutable(Path.of(candidate))).findFirst();

  /** Kills the process's descendants, then the process; twice, to catch children forked meanwhile. */
  static void killTree(Process process) {
    CommandMark.stop(List.of(process.toHandle()), 0);
  }

  private static List<String> findShell() {
    for (String candidate : List.of("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return List.of(candidate, "-c");
      }
    }
    String pathVar = System.getenv("PATH");
    if (pathVar != null) {
      for (String dir : pathVar.split(File.pathSeparator)) {
        if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "bash"))) {
          return List.of(Path.of(dir, "bash").toString(), "-c");
        }
      }
    }
    return List.of("sh", "-c");
  }

  /** A started process and the thread that reads its merged output. */
  private static final class Run {
    final Process process;
    final CappedOutput output;
    final Thread reader;
    final CommandMark mark;
    /** Whether the process leads a session of its own, whose id is its pid. */
    final boolean sessionLeader;

    private Run(Process process, CappedOutput output, Thread reader, CommandMark mark, boolean sessionLeader) {
      this.process = process;
      this.output = output;
      this.reader = reader;
      this.mark = mark;
      this.sessionLeader = sessionLeader;
    }

    static Run start(List<String> shell, String command, Path root, int maxBytes, java.util.Set<String> withheld,
        CommandMark mark) throws IOException {
      // a session of its own: its jobs are found by it, even those that clear their environment (setsid execs the shell,
      // as a child of this JVM leads no process group, so the shell's pid is the session's id)
      List<String> argv = new java.util.ArrayList<>();
      SETSID.ifPresent(argv::add);
      argv.addAll(List.of(shell.get(0), shell.get(1), command));
      ProcessBuilder builder = new ProcessBuilder(argv)
          .directory(root.toFile())
          .redirectErrorStream(true);
      File devNull = new File("/dev/null");
      if (devNull.exists()) {
        builder.redirectInput(devNull);
      }
      // The provider keys stay with Waymark: a command's output goes to the model and the session file.
      builder.environment().keySet().removeAll(withheld);
      // how this Waymark was started again in a UTF-8 locale (the prompt's words among them): not the command's
      builder.environment().keySet().removeIf(name -> name.startsWith("WAYMARK_UTF8_"));
      // No pager or prompt may wait for a terminal that is not there.
      builder.environment().put("PAGER", "cat");
      builder.environment().put("GIT_PAGER", "cat");
      builder.environment().put("GIT_TERMINAL_PROMPT", "0");
      builder.environment().put(CommandMark.VARIABLE, mark.value());
      Process process = builder.start();
      if (!devNull.exists()) {
        process.getOutputStream().close();
      }
      CappedOutput output = new CappedOutput(maxBytes);
      Thread reader = new Thread(() -> {
        byte[] buffer = new byte[8192];
        try (InputStream in = process.getInputStream()) {
          for (int n; (n = in.read(buffer)) >= 0; ) {
            output.write(buffer, n);
          }
        } catch (IOException e) {
          LOG.debug("output of a shell command ended: {}", e.toString());
        }
      }, "waymark-shell-output");
      reader.setDaemon(true);
      reader.start();
      return new Run(process, output, reader, mark, SETSID.isPresent());
    }

    /** Waits for the rest of the output; false if something still holds the pipe open. */
    boolean drain(long millis) {
      try {
        reader.join(Duration.ofMillis(millis).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return !reader.isAlive();
    }
  }
}
