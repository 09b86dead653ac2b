package dev.waymark.core.checkpoint.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * A shell command's mark: a value in its environment that every process it starts inherits,
 * and keeps when its parent dies and it is re-parented; and, once the command runs, the session it
 * leads ({@code session} 0 when it leads none), which its processes stay in even when they clear
 * their environment ({@code env -i}). It finds what a command left running, even after the Waymark
 * that ran it was killed: the store keeps it as {@link #encoded}.
 */
public record CommandMark(String value, long session, long sessionStartMillis) {
  /** The environment variable that holds the mark. */
  public static final String VARIABLE = "WAYMARK_COMMAND";

  private static final Pattern ENCODED =
      Pattern.compile("([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})(?:@(\\d{1,19}):(\\d{1,19}))?");

  /** A mark with no session yet. */
  public CommandMark(String value) {
    this(value, 0, 0);
  }

  public static CommandMark random() {
    return new CommandMark(UUID.randomUUID().toString());
  }

  /** This mark, with the session its command leads: {@code leader} was started as that session's leader. */
  public CommandMark leading(ProcessHandle leader) {
    return new CommandMark(value, leader.pid(), leader.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L));
  }

  /** The mark as the store keeps it: the value, then the session and when its leader started, if known. */
  public String encoded() {
    return session <= 0 ? value : value + "@" + session + ":" + sessionStartMillis;
  }

  /** The mark {@link #encoded} wrote; empty for any other text (only what {@link #random} makes is a mark). */
  public static Optional<CommandMark> parse(String encoded) {
    var m = ENCODED.matcher(encoded.strip());
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(m.group(2) == null ? new CommandMark(m.group(1))
          : new CommandMark(m.group(1), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))));
    } catch (NumberFormatException tooLarge) {
      return Optional.of(new CommandMark(m.group(1)));
    }
  }

  /** Whether processes can be found by their mark here: {@code /proc} shows their environment. */
  public static boolean findable() {
    return Files.isDirectory(Path.of("/proc"));
  }

  /**
   * The live processes of the command: those that carry this mark (other users' processes cannot
   * be read, and are not), and those still in the session it led.
   */
  public List<ProcessHandle> processes() {
    long ownSession = ownSession();
    String wanted = VARIABLE + "=" + value;
    List<ProcessHandle> found = new ArrayList<>();
    // one walk of the processes for both ways of finding them
    ProcessHandle.allProcesses().forEach(p -> {
      if (p.isAlive() && (carries(p.pid(), wanted) || ownSession > 0 && sessionOf(p.pid()) == ownSession)) {
        found.add(p);
      }
    });
    return found;
  }

  /**
   * The session this command led, or -1 when it led none that is still its own. A session's id is
   * its leader's pid, which the system gives again once that process is gone: a live process of
   * that pid that started at another time (or at all, when the leader had ended before its start
   * was read) means the session now is someone else's.
   */
  private long ownSession() {
    if (session <= 1) {
      return -1;
    }
    // no start time: the leader had ended before it could be read, so a live process of that pid is another
    boolean reused = ProcessHandle.of(session)
        .map(p -> sessionStartMillis <= 0 || p.info().startInstant()
            .map(i -> Math.abs(i.toEpochMilli() - sessionStartMillis) > 2_000).orElse(true))
        .orElse(false);
    // never the session Waymark itself runs in (a terminal's, whose shell and editor are the user's)
    return reused || session == sessionOf(ProcessHandle.current().pid()) ? -1 : session;
  }

  /** Whether process {@code pid}'s environment holds the entry {@code wanted} (another user's cannot be read: no). */
  private static boolean carries(long pid, String wanted) {
    try {
      byte[] environ = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
      // the whole entry: a mark that is the start of another must not find that one's processes
      String entries = "\0" + new String(environ, StandardCharsets.ISO_8859_1) + "\0";
      return entries.contains("\0" + wanted + "\0");
    } catch (IOException | SecurityException unreadable) {
      return false; // another user's process, or gone already
    }
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
  public static void stop(Collection<ProcessHandle> processes, long waitMillis) {
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
        p.onExit().get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException e) {
        LoggerFactory.getLogger(CommandMark.class).warn("process {} did not stop; what it changes from now "
            + "on is not recorded", p.pid());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  /**
   * Whether {@code process} is a sandbox's first process ({@code bwrap}), which only waits for the
   * others to end and is stopped with them; {@code whenUnknown} where its command cannot be read
   * (it ended meanwhile, or belongs to another user).
   */
  public static boolean sandboxInit(ProcessHandle process, boolean whenUnknown) {
    return process.info().command().map(c -> c.endsWith("/bwrap")).orElse(whenUnknown);
  }
}
