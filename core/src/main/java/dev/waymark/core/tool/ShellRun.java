package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.shell.CommandMark;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A started {@code run_shell} process and the thread that reads its merged output (for the result, and live). */
final class ShellRun {
  private static final Logger LOG = LoggerFactory.getLogger(ShellRun.class);
  /** {@code setsid}, which starts the command as the leader of a session of its own; empty where there is none. */
  private static final java.util.Optional<String> SETSID = java.util.stream.Stream.of("/usr/bin/setsid", "/bin/setsid")
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

  static ShellRun start(List<String> command, Path root, int maxBytes, java.util.Set<String> withheld,
      CommandMark mark, boolean sandboxed, LiveOutput live) throws IOException {
    // a session of its own: its jobs are found by it, even those that clear their environment (setsid execs the
    // command, as a child of this JVM leads no process group, so the command's pid is the session's id)
    List<String> argv = new java.util.ArrayList<>();
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
      if (RunShellTool.sandboxInit(p)) {
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
      if (RunShellTool.sandboxInit(p)) {
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
}
