package dev.waymark.core.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The processes a test's shell command left, found by a text of their command line (a tag such
 * as {@code sleep 29.71} that nothing else runs): tests wait for them to start or to end instead
 * of sleeping for as long as they might take.
 */
public final class Processes {
  private Processes() {}

  /** The live processes whose command line contains {@code text}; a zombie is dead (it was killed, only not reaped). */
  public static List<ProcessHandle> running(String text) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(text)).orElse(false))
        .filter(p -> p.isAlive() && !zombie(p.pid()))
        .toList();
  }

  /**
   * The processes {@link #running} finds, once there is at least one whose command line is
   * {@code exact}, its program named by its path or not ({@code sleep 30} is {@code /usr/bin/sleep 30}).
   */
  public static List<ProcessHandle> awaitStarted(String text, String exact) {
    Eventually.until("a process " + exact, () -> running(text).stream().anyMatch(p -> is(p, exact)));
    return running(text);
  }

  /** Whether {@code process}'s command line is {@code exact}, its program named by its path or not. */
  public static boolean is(ProcessHandle process, String exact) {
    String line = process.info().commandLine().orElse("");
    return line.equals(exact) || line.endsWith("/" + exact);
  }

  /** Returns once no process's command line contains {@code text}. */
  public static void awaitNone(String text) {
    Eventually.until("no process running " + text, () -> running(text).isEmpty());
  }

  public static boolean zombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
