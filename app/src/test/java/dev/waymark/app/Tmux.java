package dev.waymark.app;

import dev.waymark.core.testing.Eventually;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Drives a program in a detached tmux session as a person would: type, press keys, read the
 * screen. Each driver has its own tmux server socket, so it never touches a tmux the user runs.
 */
final class Tmux implements AutoCloseable {
  private final String socket = "waymark-it-" + UUID.randomUUID().toString().substring(0, 8);
  private final String session = "ui";

  static boolean available() {
    try {
      return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /** Starts {@code command} in a window of {@code columns}×{@code rows}; the pane stays readable after it exits. */
  void start(int columns, int rows, Path directory, Map<String, String> env, List<String> command) throws Exception {
    // the program sees only the provider settings a test gives it
    StringBuilder shell = new StringBuilder("unset OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_API_KEY ANTHROPIC_BASE_URL; "
        + "export TERM=xterm-256color");
    for (var e : env.entrySet()) {
      shell.append("; export ").append(e.getKey()).append('=').append(quote(e.getValue()));
    }
    shell.append("; exec");
    for (String part : command) {
      shell.append(' ').append(quote(part));
    }
    run("new-session", "-d", "-s", session, "-x", String.valueOf(columns), "-y", String.valueOf(rows),
        "-c", directory.toString(), shell.toString());
    run("set-option", "-t", session, "remain-on-exit", "on");
  }

  void type(String text) throws Exception {
    run("send-keys", "-t", session, "-l", text);
  }

  /** tmux key names: Enter, Escape, C-b, M-Left, PPage, … */
  void keys(String... keys) throws Exception {
    List<String> args = new ArrayList<>(List.of("send-keys", "-t", session));
    args.addAll(List.of(keys));
    run(args.toArray(String[]::new));
  }

  /** Pastes {@code text} the way a terminal does with bracketed paste on. */
  void paste(String text) throws Exception {
    run("set-buffer", "-b", "it", text);
    run("paste-buffer", "-p", "-b", "it", "-t", session);
  }

  void resize(int columns, int rows) throws Exception {
    run("resize-window", "-t", session, "-x", String.valueOf(columns), "-y", String.valueOf(rows));
  }

  String screen() throws Exception {
    return run("capture-pane", "-p", "-t", session);
  }

  /** The screen and the lines scrolled off above it: what a program printed as it exited may have scrolled. */
  String screenAndScrollback() throws Exception {
    return run("capture-pane", "-p", "-S", "-200", "-t", session);
  }

  /** Waits until the screen matches {@code regex} (found anywhere); fails with the screen when it does not. */
  String waitFor(String regex, Duration timeout) throws Exception {
    Pattern pattern = Pattern.compile(regex, Pattern.MULTILINE);
    String[] last = {""};
    try {
      Eventually.until("/" + regex + "/ on the screen", timeout, Duration.ofMillis(50), () -> pattern.matcher(last[0] = screen()).find());
    } catch (AssertionError timedOut) {
      throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for /" + regex + "/; the screen was:\n"
          + last[0], timedOut);
    }
    return last[0];
  }

  String waitFor(String regex) throws Exception {
    return waitFor(regex, Duration.ofSeconds(20));
  }

  boolean alive() throws Exception {
    try {
      return run("display-message", "-p", "-t", session, "#{pane_dead}").strip().equals("0");
    } catch (IOException noSession) {
      return false;
    }
  }

  /** Waits until the program has ended. */
  void waitForExit(Duration timeout) throws Exception {
    try {
      Eventually.until("the program exited", timeout, Duration.ofMillis(50), () -> !alive());
    } catch (AssertionError stillRunning) {
      throw new AssertionError("the program did not exit; the screen was:\n" + screen(), stillRunning);
    }
  }

  /** Whether the program rang the terminal bell (tmux keeps the mark while no client looks at the window). */
  boolean rang() throws Exception {
    return run("display-message", "-p", "-t", session, "#{window_bell_flag}").strip().equals("1");
  }

  String run(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("tmux " + String.join(" ", args) + " failed: " + output);
    }
    return output;
  }

  @Override
  public void close() {
    try {
      new ProcessBuilder("tmux", "-L", socket, "kill-server").redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
    } catch (IOException | InterruptedException e) {
      // nothing left to clean
    }
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
