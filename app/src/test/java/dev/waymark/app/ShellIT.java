package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code waymark shell} on a terminal (tmux), as the user and, where the tests run as root, as
 * {@code nobody}: Ctrl+C stops the command in the shell, not the shell; the shell gets no API key;
 * however it ends (exit, Ctrl+D, SIGTERM or SIGHUP to Waymark) what it changed in the isolated
 * tab's view is one labelled checkpoint that undo takes back, or none when nothing changed; and
 * nothing it started runs on after it.
 */
class ShellIT {
  static final int NOBODY = 65534;
  final boolean root = "root".equals(System.getProperty("user.name"));
  Path base;
  Path project;
  Tmux tmux;
  boolean asNobody;
  String session;
  String tab;

  @BeforeEach
  void needsTheSandbox() {
    if (Stream.of(System.getenv("PATH").split(":")).noneMatch(dir -> Files.isExecutable(Path.of(dir, "bwrap")))) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("no bwrap on PATH (CI must install the package bubblewrap: see .ci/run)");
      }
      assumeTrue(false, "no bwrap on PATH");
    }
    assertThat(Tmux.available()).as("tmux is needed for these tests: apt-get install tmux (.ci/run installs it)").isTrue();
  }

  @AfterEach
  void tearDown() throws IOException {
    if (tmux != null) {
      tmux.close();
    }
    if (base != null) {
      try (Stream<Path> walk = Files.walk(base)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** A project with one isolated tab whose turn changed nothing, owned by whoever runs Waymark. */
  private void isolatedTab(boolean nobody) throws Exception {
    assumeTrue(!nobody || root, "another user needs root to switch to");
    asNobody = nobody;
    base = Files.createDirectories(Path.of("/var/tmp", "waymark-shell-" + UUID.randomUUID()));
    project = Files.createDirectories(base.resolve("project"));
    Files.createDirectories(base.resolve("home"));
    Files.writeString(project.resolve("a.txt"), "one\n");
    Files.writeString(base.resolve("script.json"), "{\"responses\":[{\"text\":\"hi\"}]}");
    Files.copy(Path.of(System.getProperty("waymark.jar")), base.resolve("waymark.jar"));
    if (nobody) {
      try (Stream<Path> all = Files.walk(base)) {
        for (Path p : all.toList()) {
          Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
          Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
    String out = waymark("exec", "--isolated", "--script", base.resolve("script.json").toString(), "hi");
    Matcher started = Pattern.compile("session (\\S+), tab (\\S+)").matcher(out);
    assertThat(started.find()).as(out).isTrue();
    session = started.group(1);
    tab = started.group(2);
  }

  private List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    if (asNobody) {
      command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
    }
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        base.resolve("waymark.jar").toString()));
    command.addAll(List.of(args));
    return command;
  }

  private Map<String, String> env() {
    return Map.of("HOME", base.resolve("home").toString(), "WAYMARK_HOME", base.resolve("waymark").toString(),
        "XDG_CONFIG_HOME", base.resolve("home/.config").toString(), "SHELL", "/bin/bash", "OPENAI_API_KEY", "sk-the-users-key");
  }

  /** Runs a headless command to its end; its output and error together. */
  private String waymark(String... args) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command(args)).directory(project.toFile()).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().keySet().removeIf(k -> k.startsWith("OPENAI_") || k.startsWith("ANTHROPIC_") || k.startsWith("WAYMARK_"));
    pb.environment().putAll(env());
    Process process = pb.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return out;
  }

  /** {@code waymark shell} on a terminal, its prompt up. */
  private void shell(String... more) throws Exception {
    tmux = new Tmux();
    List<String> args = new ArrayList<>(List.of("shell", "--session", session, "--tab", tab));
    args.addAll(List.of(more));
    tmux.start(140, 40, project, env(), command(args.toArray(String[]::new)));
    tmux.waitFor("\\(waymark \u25c7 " + tab + "\\) ", Duration.ofSeconds(60));
  }

  private void typeLine(String line) throws Exception {
    tmux.type(line);
    tmux.keys("Enter");
  }

  private static boolean running(String commandLine) {
    return ProcessHandle.allProcesses().anyMatch(p -> p.info().commandLine().orElse("").contains(commandLine));
  }

  @ParameterizedTest(name = "as nobody: {0}")
  @ValueSource(booleans = {false, true})
  void ctrlCStopsTheCommandNotTheShellAndCtrlDRecordsALabelledCheckpointWithNothingLeftRunning(boolean nobody)
      throws Exception {
    isolatedTab(nobody);
    shell();
    assertThat(tmux.screen()).contains("inside its sandboxed view of " + project).doesNotContain("job control");

    typeLine("echo started-$((6*7)); sleep 300.25");
    tmux.waitFor("^started-42");
    tmux.keys("C-c");
    typeLine("echo \"after [$OPENAI_API_KEY]\"");
    tmux.waitFor("^after \\[\\]$");
    assertThat(running("sleep 300.25")).as("Ctrl+C stopped it").isFalse();

    typeLine("(sleep 300.5; echo late > late.txt) &");
    typeLine("echo changed > b.txt; echo done-$((2*3))");
    tmux.waitFor("^done-6");
    tmux.keys("C-d");
    tmux.waitForExit(Duration.ofSeconds(60));
    assertThat(tmux.screenAndScrollback()).contains("1 file changed in the view, recorded as checkpoint #2 "
        + "(shell: echo changed > b.txt; echo done-$((2*3)))");
    assertThat(running("sleep 300.5")).as("the background job ended with the shell").isFalse();

    assertThat(waymark("checkpoints", "list", "--session", session, "--tab", tab)).contains("shell: echo changed > b.txt");
    assertThat(waymark("checkpoints", "diff", "--session", session, "--tab", tab)).contains("+++ b/b.txt");
    waymark("checkpoints", "undo", "--session", session, "--tab", tab);
    assertThat(waymark("checkpoints", "diff", "--session", session, "--tab", tab)).doesNotContain("b.txt");
    assertThat(project.resolve("b.txt")).as("the project itself never changes").doesNotExist();
  }

  @ParameterizedTest(name = "as nobody: {0}")
  @ValueSource(booleans = {false, true})
  void aShellThatChangedNothingLeavesNoCheckpoint(boolean nobody) throws Exception {
    isolatedTab(nobody);
    shell();
    typeLine("ls");
    typeLine("exit 3");
    tmux.waitForExit(Duration.ofSeconds(60));
    assertThat(tmux.screenAndScrollback()).contains("nothing changed in the view: no checkpoint made");
    assertThat(waymark("checkpoints", "list", "--session", session, "--tab", tab)).contains("(live #1)");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"TERM", "HUP", "TERM as nobody", "HUP as nobody"})
  void aShellWhoseWaymarkIsToldToStopRecordsWhatItChangedUnderItsName(String signal) throws Exception {
    isolatedTab(signal.endsWith("as nobody"));
    shell("--name", "tidy by hand");
    typeLine("echo x > c.txt; echo started-$((6*7)); sleep 300.75");
    tmux.waitFor("^started-42");
    String pid = tmux.run("display-message", "-p", "-t", "ui", "#{pane_pid}").strip();
    assertThat(new ProcessBuilder("kill", "-" + signal.split(" ")[0], pid).start().waitFor()).isZero();
    tmux.waitForExit(Duration.ofSeconds(60));
    assertThat(tmux.screenAndScrollback()).contains("recorded as checkpoint #2 (tidy by hand)");
    assertThat(running("sleep 300.75")).isFalse();
    assertThat(waymark("checkpoints", "list", "--session", session, "--tab", tab)).contains("tidy by hand");
  }
}
