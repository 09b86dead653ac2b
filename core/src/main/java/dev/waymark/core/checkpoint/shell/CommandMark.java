package dev.waymark.core.checkpoint.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A shell command's mark: a value in its environment that every process it starts inherits,
 * and keeps when its parent dies and it is re-parented. It finds what a command left running,
 * even after the Waymark that ran it was killed.
 */
public record CommandMark(String value) {
  /** The environment variable that holds the mark. */
  public static final String VARIABLE = "WAYMARK_COMMAND";

  public static CommandMark random() {
    return new CommandMark(UUID.randomUUID().toString());
  }

  /** Whether processes can be found by their mark here: {@code /proc} shows their environment. */
  public static boolean findable() {
    return Files.isDirectory(Path.of("/proc"));
  }

  /** The live processes that carry this mark (other users' processes cannot be read, and are not). */
  public List<ProcessHandle> processes() {
    String wanted = VARIABLE + "=" + value;
    Path proc = Path.of("/proc");
    List<ProcessHandle> found = new ArrayList<>();
    ProcessHandle.allProcesses().forEach(p -> {
      if (!p.isAlive()) {
        return;
      }
      try {
        byte[] environ = Files.readAllBytes(proc.resolve(Long.toString(p.pid())).resolve("environ"));
        // the whole entry: a mark that is the start of another must not find that one's processes
        String entries = "\0" + new String(environ, StandardCharsets.ISO_8859_1) + "\0";
        if (entries.contains("\0" + wanted + "\0")) {
          found.add(p);
        }
      } catch (IOException | SecurityException unreadable) {
        // another user's process, or gone already
      }
    });
    return found;
  }

  /**
   * The live processes of session {@code sid} (the field after the process group in
   * {@code /proc/PID/stat}): a command started as a session's leader has that session's id as its
   * pid, and every process it starts stays in it, whatever it does to its environment
   * ({@code env -i}) and when re-parented. Only a process that starts a session of its own leaves it.
   */
  public static List<ProcessHandle> inSession(long sid) {
    List<ProcessHandle> found = new ArrayList<>();
    ProcessHandle.allProcesses().forEach(p -> {
      if (p.isAlive() && sessionOf(p.pid()) == sid) {
        found.add(p);
      }
    });
    return found;
  }

  /** The session of process {@code pid}, or -1 when it cannot be read. */
  static long sessionOf(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
      // "pid (comm) state ppid pgrp session ...": the command name may hold spaces and parentheses
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", 5);
      return Long.parseLong(fields[3]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Kills every process that carries this mark and waits up to {@code waitMillis} for them to
   * end (see {@link #stop}). Returns how many there were.
   */
  public int stopAll(long waitMillis) {
    List<ProcessHandle> marked = processes();
    stop(marked, waitMillis);
    return marked.size();
  }

  /**
   * Kills each process and then its descendants, twice (to catch a child forked meanwhile), then
   * waits up to {@code waitMillis} in all for them to end; one that does not is left, and named in
   * the log. Parents go first: a shell whose child was killed first would run its next line
   * ({@code sleep 3; echo late > late.txt}) before its own kill arrived.
   */
  public static void stop(java.util.Collection<ProcessHandle> processes, long waitMillis) {
    for (int round = 0; round < 2; round++) {
      for (ProcessHandle p : processes) {
        List<ProcessHandle> below = p.descendants().toList(); // listed while p still holds them
        p.destroyForcibly();
        below.forEach(ProcessHandle::destroyForcibly);
      }
    }
    long deadline = System.currentTimeMillis() + waitMillis;
    for (ProcessHandle p : processes) {
      if (waitMillis <= 0) {
        break;
      }
      try {
        p.onExit().get(Math.max(1, deadline - System.currentTimeMillis()), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        org.slf4j.LoggerFactory.getLogger(CommandMark.class).warn("process {} did not stop; what it changes from now "
            + "on is not recorded", p.pid());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }
}
