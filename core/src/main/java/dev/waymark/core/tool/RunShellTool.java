package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.sandbox.SandboxRefusals;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.wording.Wording;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

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
 *
 * <p>This class keeps the schema, the arguments and the result's text: the process is a
 * {@link ShellRun}, and the capture's life cycle a {@link CommandRecording}.
 */
final class RunShellTool extends AbstractTool {
  /** What the wait for the shell slot is measured with (a test's own time, to wait without sleeping). */
  private final LongSupplier nanoTime;

  RunShellTool(ToolSettings settings) {
    this(settings, System::nanoTime);
  }

  RunShellTool(ToolSettings settings, LongSupplier nanoTime) {
    super("run_shell",
        "Run a shell command (bash -c) in the project root, with stdin closed. Returns the exit code and the "
            + "combined stdout and stderr (long output keeps its start and end). Files the command creates, "
            + "changes or deletes are recorded so the user can undo them. Default timeout "
            + settings.shellTimeout().toMillis() + " ms. Do not start interactive programs or servers that never exit."
            + sandboxNote(settings),
        new Args.Schema()
            .string("command", "The command line to run", true)
            .integer("timeout_ms", "Timeout in milliseconds (default " + settings.shellTimeout().toMillis()
                + ", at most " + settings.shellMaxTimeout().toMillis() + ")", false)
            .bool("sandbox", "false runs the command outside the sandbox, with the user's rights and the network; "
                + "the user is asked every time. Use it only when the sandbox refused something the command needs", false),
        ToolKind.SHELL, settings);
    this.nanoTime = nanoTime;
  }

  /** {@link ToolKind#SANDBOXED_SHELL} when the command will run in the sandbox, which the approval mode {@code auto} lets run. */
  @Override
  public ToolKind kind(JsonNode arguments) {
    try {
      return settings.sandbox().confines() && !outside(Args.of(arguments)) ? ToolKind.SANDBOXED_SHELL : ToolKind.SHELL;
    } catch (ToolError | RuntimeException e) {
      return ToolKind.SHELL;
    }
  }

  /**
   * In plan mode a command runs unasked, like a read, but only in the sandbox and with the project
   * mounted read-only, so that it can look around (git log, ls, test discovery) and change nothing.
   */
  @Override
  public PlanUse inPlan(JsonNode arguments) {
    if (!settings.sandbox().confines()) {
      return PlanUse.refused("plan mode runs shell commands only in a sandbox with the project read-only, and there is "
          + "no sandbox here (" + (settings.sandbox().unavailable().isBlank() ? "turned off in the settings"
              : settings.sandbox().unavailable()) + ")");
    }
    try {
      return outside(Args.of(arguments)) ? PlanUse.refused("plan mode runs no command outside the sandbox; call "
          + "run_shell without \"sandbox\": false, or propose the command in your plan")
          : PlanUse.as(ToolKind.READ);
    } catch (ToolError | RuntimeException e) {
      return PlanUse.refused(e.getMessage());
    }
  }

  @Override
  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return outside(args) ? Optional.of(Sensitive.OUTSIDE_SANDBOX) : Optional.empty();
  }

  /** Whether the call asks to run outside the sandbox. */
  private static boolean outside(Args args) throws ToolError {
    return !args.optionalBoolean("sandbox").orElse(true);
  }

  /** The sandbox's words in the tool's description, so the model knows what will be refused and how to ask. */
  private static String sandboxNote(ToolSettings settings) {
    if (!settings.sandbox().confines()) {
      return "";
    }
    return " Commands run in a sandbox: they can write only the project, /tmp and "
        + (settings.sandbox().policy().writable().isEmpty() ? "no other directory"
            : String.join(", ", settings.sandbox().policy().writable().stream().map(Path::toString).toList()))
        + "; the project's .git and .waymark are read-only"
        + (settings.sandbox().policy().gitWritable() ? " (.git writable)" : "")
        + (settings.sandbox().policy().network() ? "." : "; there is no network, localhost included.");
  }

  @Override
  String summary(Args args) throws ToolError {
    return args.string("command");
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String command = args.string("command");
    if (command.isBlank()) {
      return ToolResult.error(ErrorKind.REFUSED, "The command is empty.");
    }
    long timeoutMs = args.optionalLong("timeout_ms", 1, Long.MAX_VALUE).orElse(settings.shellTimeout().toMillis());
    String capNote = "";
    if (timeoutMs > settings.shellMaxTimeout().toMillis()) {
      timeoutMs = settings.shellMaxTimeout().toMillis();
      capNote = "[timeout_ms capped at " + timeoutMs + "]\n";
    }
    if (context.cancellation().isCancelled()) {
      return ToolResult.error(ErrorKind.INTERRUPTED, "Cancelled before the command started.");
    }
    boolean outside = outside(args);
    if (context.readOnly()) {
      if (outside || !settings.sandbox().confines()) { // the gate refuses these in plan mode; never run one unfenced
        return ToolResult.error(ErrorKind.REFUSED, "Not run: a read-only call runs commands only in the sandbox.");
      }
      // nothing can change, so there is nothing to capture: no layer, no snapshot, no turn to take
      CommandRecording lookingOnly = CommandRecording.NONE;
      if (context.turn() != null && context.turn().viewDirectory().isPresent()) {
        try { // an isolated tab's command looks at its view, mounted read-only
          lookingOnly = CommandRecording.enteringOnly(context.turn().readOnlyEntry(settings.sandbox().bwrap()));
        } catch (CheckpointException e) {
          return ToolResult.error(ToolError.kindOf(e), "Not run: " + e.getMessage() + ".");
        }
      }
      return run(context, command, timeoutMs, capNote, ProjectPaths.of(context.projectRoot()).root(), 0, "", true,
          lookingOnly);
    }
    if (!outside && settings.sandbox().refuses()) {
      return ToolResult.error(ErrorKind.REFUSED, "Not run: the sandbox is required (\"sandbox\": {\"mode\": \"required\"} in the settings) and "
          + "cannot start here: " + settings.sandbox().unavailable() + ". Tell the user; they may allow this one command "
          + "outside the sandbox if you call run_shell again with \"sandbox\": false.");
    }
    boolean confined = !outside && settings.sandbox().confines();
    if (!confined && context.turn() != null && context.turn().viewDirectory().isPresent()) {
      // outside the sandbox the command would write the project itself, which an isolated tab never does before it lands
      return ToolResult.error(ErrorKind.REFUSED, "Not run: this tab is isolated, and runs commands only in the sandbox, in its view of the "
          + "project" + (outside ? "; call run_shell without \"sandbox\": false" : " (" + (settings.sandbox().unavailable()
              .isBlank() ? "the sandbox is turned off in the settings" : settings.sandbox().unavailable()) + ")") + ".");
    }
    Path root = ProjectPaths.of(context.projectRoot()).root();
    // a sandboxed command runs in a layer of its own where it can; others are captured by observation
    CommandRecording recording = TurnRecording.choose(context.turn(),
        confined ? settings.sandbox().bwrap() : Optional.empty(), command);
    if (confined && recording.noLayer().isPresent() && SAID_NO_LAYERS.compareAndSet(false, true)) {
      capNote += "[no copy-on-write layer for sandboxed commands here (" + recording.noLayer().get() + "): commands take "
          + "turns on this project, and their changes are found by comparing the files before and after]\n";
    }
    Optional<CommandSlot.Held> slot = Optional.empty();
    long waitedFrom = nanoTime.getAsLong();
    String waitedFor = "";
    Optional<CommandSlot> toTake = recording.slot();
    if (toTake.isPresent()) {
      CommandSlot slots = toTake.get();
      long deadline = waitedFrom + TimeUnit.MILLISECONDS.toNanos(timeoutMs); // the wait counts against the timeout
      try {
        while (slot.isEmpty()) {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - nanoTime.getAsLong());
          if (context.cancellation().isCancelled() || left <= 0) {
            String holder = slots.holder().map(h -> " (" + Wording.slotHolder(h) + ")").orElse("");
            return ToolResult.error(context.cancellation().isCancelled() ? ErrorKind.INTERRUPTED : ErrorKind.BUSY,
                context.cancellation().isCancelled()
                ? "Cancelled while waiting for another shell command on this project" + holder + " to finish."
                : "The command was not run: another shell command on this project" + holder + " held the project for "
                    + "the whole timeout of " + timeoutMs + " ms. Commands do not overlap, so that each one's files are "
                    + "its own.");
          }
          slot = slots.take(Math.min(SLOT_POLL_MILLIS, left));
          if (slot.isEmpty() && waitedFor.isEmpty()) {
            waitedFor = slots.holder().map(h -> " (" + Wording.slotHolder(h) + ")").orElse("");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ToolResult.error(ErrorKind.INTERRUPTED, CANCELLED_WAITING);
      }
    }
    long waited = (nanoTime.getAsLong() - waitedFrom) / 1_000_000;
    try {
      // a wait worth saying counts against the timeout; a shorter one (taking the slot) does not change the figure said
      long left = waited < WAIT_WORTH_SAYING_MILLIS ? timeoutMs : Math.max(1, timeoutMs - waited);
      return run(context, command, left, capNote, root, waited, waitedFor, confined, recording);
    } finally {
      slot.ifPresent(CommandSlot.Held::close);
    }
  }

  private static final String PLAN_READ_ONLY = "[plan mode: the project is read-only for commands, which may look "
      + "but not change anything; put the change in your plan]";

  /** Whether this process said once that sandboxed commands cannot have layers here. */
  private static final AtomicBoolean SAID_NO_LAYERS = new AtomicBoolean();

  private static final String CANCELLED_WAITING = "Cancelled while waiting for another shell command on this project to finish.";
  /** Waits are checked for cancellation this often. */
  private static final long SLOT_POLL_MILLIS = 200;
  /** A wait for another command longer than this is said in the result. */
  private static final long WAIT_WORTH_SAYING_MILLIS = 1_000;

  /** Runs the command, holding the slot; {@code notes} start its result. */
  private ToolResult run(ToolContext context, String command, long timeoutMs, String notes, Path root, long waitedMillis,
      String waitedFor, boolean confined, CommandRecording recording) throws IOException {
    CommandMark mark = CommandMark.random();
    Optional<String> notRun = recording.before(settings.maxFileSize(), mark);
    if (notRun.isPresent()) {
      return ToolResult.error(ErrorKind.TOOL_FAILED, "The command was not run: " + notRun.get() + ".");
    }
    if (waitedMillis >= WAIT_WORTH_SAYING_MILLIS) {
      notes = "[waited " + (waitedMillis + 500) / 1000 + " s for another shell command on this project" + waitedFor
          + " to finish: "
          + "commands do not overlap, so each one's files are its own]\n" + notes;
    }

    List<String> argv = ShellRun.argv(command);
    // outside the sandbox: the command line as it is, and no mount points to remove
    ShellSandbox.Wrapped wrapped = confined ? settings.sandbox().wrap(argv, root, false, context.readOnly())
        : new ShellSandbox.Wrapped(argv, List.of());
    ShellRun run = ShellRun.start(recording.enter(wrapped.argv()), root, settings.shellMaxOutputBytes(),
        settings.withheldVariables(), mark, confined, new LiveOutput(context.output()));
    recording.started(run);
    ShellRun.Ended ended = run.await(timeoutMs, context.cancellation());

    StringBuilder out = new StringBuilder(notes);
    String output = run.output.text();
    out.append(output.isEmpty() ? "(no output)\n" : output.endsWith("\n") ? output : output + "\n");
    if (!ended.drained()) {
      out.append("[a background process still holds the output open; later output is not shown]\n");
    }
    if (confined) {
      // in plan mode leaving the sandbox is refused, so the usual advice (ask to leave it) would mislead
      SandboxRefusals.explain(output, !settings.sandbox().policy().network(), settings.sandbox().blocksUnixSockets())
          .map(line -> context.readOnly() ? PLAN_READ_ONLY : line).ifPresent(line -> out.append(line).append('\n'));
    }
    Optional<ErrorKind> failed;
    if (ended.cancelled()) {
      out.append("[cancelled: the command and its child processes were killed]\n");
      failed = Optional.of(ErrorKind.INTERRUPTED);
    } else if (ended.timedOut()) {
      out.append("[timed out after ").append(timeoutMs).append(" ms: the command and its child processes were killed]\n");
      failed = Optional.of(ErrorKind.TIMED_OUT);
    } else {
      int exit = run.process.exitValue();
      out.append("[exit code ").append(exit).append("]\n");
      failed = exit != 0 ? Optional.of(ErrorKind.TOOL_FAILED) : Optional.empty();
    }
    CommandRecording.Recorded recorded = recording.after(run, ended, wrapped.placeholders());
    recorded.notRun().ifPresent(why -> out.append('[').append(why).append("]\n"));
    describe(recorded.changes(), out);
    if (!recorded.notApplied().isEmpty()) {
      out.append(Wording.notApplied(recorded.notApplied(), recorded.rescueTag()));
      // first, where a one-line view of the result (exec, a folded tool call) shows it
      out.insert(0, Wording.notAppliedHeadline(recorded.notApplied().size()));
    }
    List<ProcessHandle> left = recorded.stillRunning().orElse(List.of());
    if (!left.isEmpty()) {
      out.append("[").append(left.stream().filter(p -> !ShellRun.sandboxInit(p)).count())
          .append(" background process(es) still running").append(recorded.leftRunningNote()).append("]\n");
    }
    if (recorded.notRecorded().isPresent()) {
      out.append("[").append(recorded.notRecorded().get()).append("]\n");
      // whatever the command's exit: its changes are not in the project, or not undoable; said first, for a one-line view
      out.insert(0, ToolResult.NOT_RECORDED + "the command's file changes could not be applied or recorded: see below]\n");
      failed = Optional.of(ErrorKind.NOT_RECORDED);
    }
    if (confined && recorded.stillRunning().orElseGet(run::stillRunning).isEmpty()) {
      wrapped.removePlaceholders(); // a sandbox with jobs left still holds them; an empty one is harmless
    }
    return new ToolResult(out.toString(), failed);
  }

  /** Appends what the command changed: recorded changes, then what was left out. */
  static void describe(WorkTreeChanges changes, StringBuilder out) {
    if (!changes.recorded().isEmpty()) {
      out.append("Files changed (recorded; undo restores them):\n");
      Map<String, String> renamed = renames(changes.recorded());
      for (FileChange change : changes.recorded()) {
        if (renamed.containsKey(change.path())) {
          out.append("  renamed ").append(change.path()).append(" → ").append(renamed.get(change.path())).append('\n');
        } else if (!renamed.containsValue(change.path())) {
          out.append("  ").append(verb(change)).append(' ').append(change.path()).append('\n');
        }
      }
    }
    if (!changes.skipped().isEmpty()) {
      out.append("Changed but not recorded (undo will not restore them):\n");
      for (WorkTreeChanges.Skipped skipped : changes.skipped()) {
        out.append("  ").append(skipped.path()).append(": ").append(skipped.reason()).append('\n');
      }
    }
  }

  /**
   * Deleted paths whose exact content (and kind) a created path now holds: {@code mv a b} read back
   * as one rename rather than a creation and a deletion. Each content pairs once, in path order.
   */
  private static Map<String, String> renames(List<FileChange> recorded) {
    Map<String, ArrayDeque<String>> createdByContent = new HashMap<>();
    for (FileChange change : recorded) {
      if (!change.before().exists() && change.after().exists()) {
        createdByContent.computeIfAbsent(change.after().kind() + ":" + change.after().blob(), k -> new ArrayDeque<>())
            .add(change.path());
      }
    }
    Map<String, String> renamed = new LinkedHashMap<>();
    for (FileChange change : recorded) {
      if (change.before().exists() && !change.after().exists()) {
        ArrayDeque<String> to = createdByContent.get(change.before().kind() + ":" + change.before().blob());
        if (to != null && !to.isEmpty()) {
          renamed.put(change.path(), to.poll());
        }
      }
    }
    return renamed;
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
}
