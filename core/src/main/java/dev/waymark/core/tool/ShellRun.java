package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.model.Cancellation;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started {@code run_shell} process and the thread that reads its merged output (for the result,
 * and live): its start, its wait under a timeout and a cancel switch, the kill of its whole process
 * tree, and the processes it left running.
 */
final class ShellRun {
  private static final Logger LOG = LoggerFactory.getLogger(ShellRun.class);
  private static final List<String> SHELL = findShell();
  /** How long to wait for output still in the pipe after the command ended or was killed. */
  private static final long DRAIN_MILLIS = 1_000;
  /** {@code setsid}, which starts the command as the leader of a session of its own; empty where there is none. */
  private static final Optional<String> SETSID = Stream.of("/usr/bin/setsid", "/bin/setsid")
      .filter(candidate -> Files.isExecutable(Path.of(candidate))).findFirst();
  /** How long the output must stay quiet before the sandbox's pipe holders are looked at. */
  private static final long QUIET_MILLIS = 50;

  final Process process;
  final CappedOutput output;
  final LiveOutput live;
  final Thread reader;
  final CommandMark mark;
  final boolean sandboxed;
  /** Whether the process leads a session of its own, whose id is its pid. */
  final boolean sessionLeader;
  /** Whether the reader waits in a read, and how many reads it has made: no read in a while means nothing is left. */
  private volatile boolean inRead;
  private volatile long reads;

  private ShellRun(Process process, CappedOutput output, LiveOutput live, CommandMark mark, boolean sandboxed,
      boolean sessionLeader) {
    this.process = process;
    this.output = output;
    this.live = live;
    this.mark = mark;
    this.sandboxed = sandboxed;
    this.sessionLeader = sessionLeader;
    this.reader = new Thread(this::read, "waymark-shell-output");
    reader.setDaemon(true);
  }

  private void read() {
    byte[] buffer = new byte[8192];
    try (InputStream in = process.getInputStream()) {
      for (;;) {
        inRead = true;
        int n = in.read(buffer);
        inRead = false;
        reads++;
        if (n < 0) {
          break;
        }
        output.write(buffer, n);
        live.write(buffer, n);
      }
    } catch (IOException e) {
      LOG.debug("output of a shell command ended: {}", e.toString());
    }
  }

  /** How the command ended: by itself, or killed with its descendants when cancelled or timed out; {@code drained}: its output is whole. */
  record Ended(boolean cancelled, boolean timedOut, boolean drained) {}

  /** The command line that runs {@code command} with {@code bash -c} (or {@code sh -c}). */
  static List<String> argv(String command) {
    return List.of(SHELL.get(0), SHELL.get(1), command);
  }

  static ShellRun start(List<String> command, Path root, int maxBytes, Set<String> withheld,
      CommandMark mark, boolean sandboxed, LiveOutput live) throws IOException {
    // a session of its own: its jobs are found by it, even those that clear their environment (setsid execs the
    // command, as a child of this JVM leads no process group, so the command's pid is the session's id)
    List<String> argv = new ArrayList<>();
    SETSID.ifPresent(argv::add);
    argv.addAll(command);
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
    ShellRun run = new ShellRun(process, new CappedOutput(maxBytes), live, mark, sandboxed, SETSID.isPresent());
    run.reader.start();
    return run;
  }

  /**
   * Waits for the rest of the output; false if something still holds the pipe open. A sandbox's
   * first process holds it as long as the sandbox lives: once the command has ended, everything
   * written is read and no other process of the sandbox holds it, the output is whole.
   */
  boolean drain(long millis) {
    long deadline = System.nanoTime() + Duration.ofMillis(millis).toNanos();
    try {
      while (reader.isAlive() && System.nanoTime() < deadline) {
        long before = reads;
        reader.join(QUIET_MILLIS);
        if (sandboxed && reader.isAlive() && !process.isAlive() && inRead && reads == before
            && onlyTheSandboxHoldsTheOutput()) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !reader.isAlive();
  }

  /** Whether no process of the command but the sandbox's init holds the write end of the output pipe. */
  private boolean onlyTheSandboxHoldsTheOutput() {
    List<ProcessHandle> marked = mark.processes();
    String pipe = null;
    for (ProcessHandle p : marked) {
      if (sandboxInit(p)) {
        try {
          pipe = Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "fd", "1")).toString();
        } catch (IOException | UnsupportedOperationException e) {
          return false;
        }
      }
    }
    if (pipe == null) {
      return false; // the init is gone, and the pipe with it: the reader ends by itself
    }
    for (ProcessHandle p : marked) {
      if (sandboxInit(p)) {
        continue;
      }
      try (var fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
        for (Path fd : (Iterable<Path>) fds::iterator) {
          try {
            if (Files.readSymbolicLink(fd).toString().equals(pipe)) {
              return false;
            }
          } catch (IOException closedMeanwhile) {
            // gone
          }
        }
      } catch (IOException | SecurityException unreadable) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits for the command to end, at most {@code timeoutMs}, sending its output as it comes; kills
   * its whole tree when it times out or {@code cancellation} is cancelled; then waits for the rest
   * of its output and sends it, before the result.
   */
  Ended await(long timeoutMs, Cancellation cancellation) {
    AtomicBoolean cancelled = new AtomicBoolean();
    cancellation.onCancel(() -> {
      if (process.isAlive()) {
        cancelled.set(true);
        killTree(process);
      }
    });
    boolean timedOut = false;
    try {
      if (!waitShowingOutput(timeoutMs)) {
        timedOut = !cancelled.get();
        killTree(process);
        process.waitFor(DRAIN_MILLIS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      killTree(process);
      Thread.currentThread().interrupt();
      cancelled.set(true);
    }
    boolean drained = drain(DRAIN_MILLIS);
    live.send(); // the rest, before the result
    return new Ended(cancelled.get(), timedOut, drained);
  }

  /** Waits for the command to end, at most {@code timeoutMs}, sending its output as it comes once a frame. */
  private boolean waitShowingOutput(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (;;) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      if (process.waitFor(Math.min(left, TimeUnit.MILLISECONDS.toNanos(LiveOutput.FRAME_MILLIS)), TimeUnit.NANOSECONDS)) {
        return true;
      }
      live.send();
    }
  }

  /**
   * Processes the command started that outlive it (jobs sent to the background, daemons): those
   * of the session it leads (started with {@code setsid}), which a job stays in whatever it does to
   * its environment, and those that carry the command's mark in their environment (one that
   * started a session of its own). Both survive being re-parented. Where {@code /proc} is not
   * readable, the command's remaining descendants.
   */
  List<ProcessHandle> stillRunning() {
    if (!CommandMark.findable()) {
      return process.descendants().filter(ProcessHandle::isAlive).toList();
    }
    Map<Long, ProcessHandle> found = new LinkedHashMap<>();
    if (sessionLeader) {
      CommandMark.inSession(process.pid()).forEach(p -> found.put(p.pid(), p));
    }
    mark.processes().forEach(p -> found.putIfAbsent(p.pid(), p));
    found.remove(process.pid());
    List<ProcessHandle> left = List.copyOf(found.values());
    // A sandbox's init stays while its jobs run, and is stopped with them (which stops every process
    // in it); alone, it is ending by itself.
    return left.stream().allMatch(ShellRun::sandboxInit) ? List.of() : left;
  }

  /** Whether {@code process} is a sandbox's first process ({@code bwrap}, which waits for the rest). */
  static boolean sandboxInit(ProcessHandle process) {
    return CommandMark.sandboxInit(process, false);
  }

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
}
