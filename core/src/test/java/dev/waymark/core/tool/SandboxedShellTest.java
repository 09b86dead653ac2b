package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxMode;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.Processes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run_shell} in the sandbox: each boundary it holds, tried with the command a model would
 * send. Places outside the project are made outside {@code /tmp} ({@code /var/tmp}), since the
 * sandbox's private {@code /tmp} would hide the test's temporary directories anyway.
 */
@Tag("process")
class SandboxedShellTest {
  @TempDir Path temp;
  Path outside; // under /var/tmp: seen by the sandbox, read-only there
  Path cache;
  Path data;
  Path config;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    outside = Files.createDirectories(Path.of("/var/tmp", "waymark-sandbox-test-" + UUID.randomUUID()));
    // the user's own tree: declared writable as a whole, with Waymark's data and config inside it
    cache = Files.createDirectories(outside.resolve("cache"));
    data = Files.createDirectories(outside.resolve("data"));
    config = Files.createDirectories(outside.resolve("config"));
    Files.writeString(data.resolve("session.json"), "{}\n");
    Files.writeString(config.resolve("settings.json"), "{}\n");
    f = fixture(policy(List.of(outside), false, false));
  }

  @AfterEach
  void close() throws IOException {
    f.close();
    try (var walk = Files.walk(outside)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private SandboxPolicy policy(List<Path> writable, boolean network, boolean git) {
    return new SandboxPolicy(SandboxMode.AUTO, writable, network, git, List.of(data), List.of(config));
  }

  private ToolFixture fixture(SandboxPolicy policy) throws IOException {
    if (f != null) {
      f.close();
    }
    return new ToolFixture(temp.resolve(UUID.randomUUID().toString()), ToolSettings.DEFAULTS.withSandbox(Bwrap.required(policy)));
  }

  @Test
  void aCommandCannotWriteTheHomeDirectoryNorAnotherDirectoryOutsideTheProject() throws IOException {
    f = fixture(policy(List.of(), false, false));
    Path inHome = Path.of(System.getProperty("user.home"), "waymark-sandbox-" + UUID.randomUUID());
    ToolResult home = f.shell("echo x > " + inHome);
    ToolResult other = f.shell("echo x > " + outside.resolve("x") + "; mkdir " + outside.resolve("d") + "; rm -rf " + cache);
    ToolResult tmpOfTheUser = f.shell("echo x > " + f.outside.resolve("x")); // outside, under /tmp: not even there

    assertThat(Files.exists(inHome)).isFalse();
    assertThat(Files.exists(outside.resolve("x"))).isFalse();
    assertThat(Files.exists(outside.resolve("d"))).isFalse();
    assertThat(Files.isDirectory(cache)).isTrue();
    assertThat(Files.exists(f.outside.resolve("x"))).isFalse();
    assertThat(home.content()).contains("Read-only file system")
        .contains("[the sandbox refused a write outside the project's writable places");
    assertThat(other.content()).contains("Read-only file system");
    assertThat(tmpOfTheUser.isError()).isTrue();
  }

  @Test
  void waymarksDataCannotBeSeenWrittenOrDeletedEvenInsideAWritableDirectory() {
    ToolResult r = f.shell("ls -A " + data + " | wc -l; cat " + data.resolve("session.json") + "; echo x > " + data.resolve("new")
        + "; rm -rf " + data + "; echo y > " + config.resolve("settings.json") + "; echo ok > " + cache.resolve("ok"));

    assertThat(r.content()).startsWith("0\n").contains("session.json: No such file").doesNotContain("{}")
        .contains("Read-only file system");
    assertThat(Files.exists(data.resolve("session.json"))).isTrue();
    assertThat(Files.exists(data.resolve("new"))).isFalse();
    assertThat(config.resolve("settings.json")).hasContent("{}");
    assertThat(cache.resolve("ok")).hasContent("ok"); // the declared directory itself is writable
  }

  @Test
  void aKeyFileCannotBeReadOrWritten() throws IOException {
    Path key = Files.writeString(outside.resolve("work.key"), "sk-secret\n");
    f = fixture(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, List.of(data, key), List.of(config)));
    ToolResult r = f.shell("cat " + key + "; echo x > " + key);
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).doesNotContain("sk-secret");
    assertThat(key).hasContent("sk-secret");
  }

  @Test
  void theProjectIsWritableAndRecordedAndUsrIsReadable() throws IOException {
    ToolResult r = f.shell("echo made > made.txt; mkdir -p src && echo b > src/b.txt; ls /usr/bin | grep -c . > /dev/null"
        + " && head -c 0 /etc/os-release && echo read-ok; echo t > /tmp/t && cat /tmp/t");

    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(r.content()).contains("read-ok").contains("t\n").doesNotContain("the sandbox refused");
    assertThat(f.read("made.txt")).isEqualTo("made\n");
    assertThat(f.recorded()).containsExactly("made.txt", "src/b.txt");
    f.finish();
    f.tab.undo(); // undone like any command
    assertThat(f.exists("made.txt")).isFalse();
  }

  @Test
  void gitStatusPythonAndJavaRunInside() throws Exception {
    git("init", "-q");
    f.write("a.txt", "a\n");
    ToolResult r = f.shell("git status --porcelain && python3 -c 'print(6*7)' && java -version 2>&1 | head -1"
        + " && { command -v mvn > /dev/null && mvn -v -q > /dev/null; echo mvn $?; }");

    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(r.content()).contains("?? a.txt").contains("42").contains("version").contains("mvn 0");
  }

  @Test
  void theProjectsGitIsReadOnlyUnlessOpened() throws Exception {
    git("init", "-q");
    f.write("a.txt", "a\n");
    ToolResult closed = f.shell("git add a.txt; echo x > .git/hooks/post-commit; rm -rf .git/objects");
    assertThat(closed.content()).contains("Read-only file system");
    assertThat(Files.exists(f.file(".git/hooks/post-commit"))).isFalse();
    assertThat(Files.isDirectory(f.file(".git/objects"))).isTrue();
    assertThat(Files.exists(f.file(".git/index"))).isFalse();

    Path project = f.project;
    f.close();
    f = null;
    ToolSettings opened = ToolSettings.DEFAULTS.withSandbox(Bwrap.required(policy(List.of(), false, true)));
    try (ToolFixture g = new ToolFixture(project.getParent(), opened)) {
      ToolResult commit = g.shell("git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline | wc -l");
      assertThat(commit.isError()).as(commit.content()).isFalse();
      assertThat(commit.content()).startsWith("1\n");
    }
    f = fixture(policy(List.of(), false, false));
  }

  @Test
  void theGitDirectoryAGitdirFileNamesIsReadOnlyEvenInsideAWritableDirectory() throws IOException {
    Path real = Files.createDirectories(outside.resolve("worktrees-git")); // under the writable `outside`
    Files.writeString(real.resolve("HEAD"), "ref: refs/heads/main\n");
    Files.writeString(f.file(".git"), "gitdir: " + real + "\n");
    ToolResult r = f.shell("echo x > " + real.resolve("HEAD") + "; echo gitdir: /tmp/elsewhere > .git; echo y > "
        + outside.resolve("cache/ok"));
    assertThat(r.content()).contains("Read-only file system");
    assertThat(real.resolve("HEAD")).hasContent("ref: refs/heads/main");
    assertThat(f.file(".git")).hasContent("gitdir: " + real);
    assertThat(outside.resolve("cache/ok")).hasContent("y"); // the rest of the writable directory is writable
  }

  @Test
  void inALinkedWorkTreeGitWritableLetsACommandCommitButLeaveNoProgramInAnyGitDirectory() throws Exception {
    Path main = Files.createDirectories(temp.resolve("main-" + UUID.randomUUID()));
    gitIn(main, "init", "-q", "-b", "main");
    Files.writeString(main.resolve("a.txt"), "a\n");
    gitIn(main, "add", "a.txt");
    gitIn(main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
    Path tree = temp.resolve(UUID.randomUUID().toString());
    gitIn(main, "worktree", "add", "-q", "-b", "side", tree.resolve("project").toString());
    f.close();
    f = new ToolFixture(tree, ToolSettings.DEFAULTS.withSandbox(Bwrap.required(policy(List.of(), false, true))));
    Path common = main.resolve(".git");
    String settings = Files.readString(common.resolve("config"));

    ToolResult r = f.shell("common=$(git rev-parse --git-common-dir); own=$(git rev-parse --git-dir);"
        + " git config core.fsmonitor 'touch pwned'; printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> $common/config;"
        + " printf '#!/bin/sh\\ntouch pwned\\n' > $common/hooks/post-checkout;"
        + " printf '[core]\\n\\thooksPath = /tmp\\n' > $own/config.worktree; echo /tmp > $own/commondir;"
        + " echo '* filter=x' > $common/info/attributes; mkdir $common/worktrees/other $common/modules;"
        + " echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm two && echo COMMITTED");

    assertThat(r.content()).contains("COMMITTED").contains("Read-only file system");
    assertThat(Files.readString(common.resolve("config"))).isEqualTo(settings);
    assertThat(common.resolve("hooks/post-checkout")).doesNotExist();
    assertThat(common.resolve("info/attributes")).doesNotExist();
    assertThat(common.resolve("modules")).doesNotExist();
    assertThat(common.resolve("worktrees/other")).doesNotExist();
    Path own = common.resolve("worktrees/project");
    assertThat(own.resolve("config.worktree")).as("the empty mount point is removed").doesNotExist();
    assertThat(Files.readString(own.resolve("commondir"))).isEqualTo("../..\n");
    assertThat(git(main, "log", "--format=%s", "side")).isEqualTo("two\none\n");
  }

  @Test
  void rootInsideCannotUnmountOrRemountItsWayOut() throws Exception {
    git("init", "-q");
    ToolResult r = f.shell("umount .git; umount " + config + "; mount -o remount,rw /; unshare -rm sh -c 'umount "
        + f.project.resolve(".git") + "'; echo x > .git/x; echo y > " + config.resolve("settings.json"));
    assertThat(r.content()).contains("Read-only file system");
    assertThat(f.file(".git/x")).doesNotExist();
    assertThat(config.resolve("settings.json")).hasContent("{}");
  }

  @Test
  void theWaymarkDirectoryOfTheProjectCannotBeMadeOrChanged() throws IOException {
    ToolResult absent = f.shell("mkdir -p .waymark && echo '{\"approval\":\"yolo\"}' > .waymark/settings.json");
    assertThat(absent.content()).contains("Read-only file system");
    assertThat(Files.exists(f.file(".waymark")))
        .as("nothing left in the project, not even the sandbox's empty mount point").isFalse();

    f.write(".waymark/settings.json", "{}\n");
    ToolResult present = f.shell("echo '{\"approval\":\"yolo\"}' > .waymark/settings.json; rm -rf .waymark");
    assertThat(present.content()).contains("Read-only file system");
    assertThat(f.read(".waymark/settings.json")).isEqualTo("{}\n");
  }

  @Test
  void aLinkOutOfTheProjectCannotBeUsedToWriteOutside() throws IOException {
    f = fixture(policy(List.of(), false, false));
    Path target = Files.createDirectories(outside.resolve("target"));
    Files.writeString(target.resolve("keep.txt"), "keep\n");
    Files.createSymbolicLink(f.file("out"), target);
    Files.createSymbolicLink(f.file("home"), Path.of(System.getProperty("user.home")));
    String name = "waymark-sandbox-" + UUID.randomUUID();
    ToolResult r = f.shell("echo x > out/new.txt; echo y >> out/keep.txt; rm -f out/keep.txt; echo z > home/" + name);

    assertThat(r.content()).contains("Read-only file system");
    assertThat(target.resolve("keep.txt")).hasContent("keep");
    assertThat(Files.exists(target.resolve("new.txt"))).isFalse();
    assertThat(Files.exists(Path.of(System.getProperty("user.home"), name))).isFalse();
  }

  @Test
  void theNetworkIsOffLocalhostIncludedAndOnWhenAllowed() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Boolean> accepted = CompletableFuture.supplyAsync(() -> {
        try (var socket = server.accept()) {
          return true;
        } catch (IOException e) {
          return false;
        }
      });
      String connect = "exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo connected";
      ToolResult off = f.shell(connect);
      assertThat(off.content()).doesNotContain("connected\n")
          .contains("[the sandbox refused a network connection (the network is off in the sandbox, localhost included)");
      assertThat(accepted.isDone()).isFalse();

      f = fixture(policy(List.of(), true, false));
      ToolResult on = f.shell(connect);
      assertThat(on.content()).as(on.content()).contains("connected\n").doesNotContain("the sandbox refused");
      assertThat(accepted.get(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aSocketOnTheReadOnlyFileSystemCannotBeReachedWithoutTheNetwork() throws Exception {
    Path socketPath = Path.of("/run", "waymark-sandbox-test-" + UUID.randomUUID() + ".sock");
    try (var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socketPath));
      ToolResult r = f.shell("python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"" + socketPath
          + "\"); print(\"CONNECTED\")'");
      assertThat(r.content()).doesNotContain("CONNECTED");
      f = fixture(policy(List.of(), true, false));
      assertThat(f.shell("ls /run/user 2>&1 | wc -l").content()).startsWith("0\n"); // with the network: the users' sockets hidden
    } finally {
      Files.deleteIfExists(socketPath);
    }
  }

  @Test
  void aBackgroundJobStaysInTheSandboxAndIsRecordedWhenTheTurnEnds() throws Exception {
    ToolResult r = f.shell("(sleep 1; echo late > late.txt; echo x > " + outside.resolve("cache/late") + "; echo y > "
        + data.resolve("late") + ") > /dev/null 2>&1 &");
    assertThat(r.content()).contains("[2 background process(es) still running"); // the subshell and its sleep, not the sandbox
    Eventually.until("the job ended", () -> f.store.backgroundProcesses() == 0); // it has written (in the command's layer: applied when the turn ends)
    assertThat(Files.exists(data.resolve("late"))).isFalse(); // the job ran in the command's sandbox
    f.finish();
    assertThat(f.exists("late.txt")).isTrue();
    assertThat(f.tab.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("late.txt");
  }

  @Test
  void exitStopsEveryProcessInTheSandboxThoseThatDroppedTheMarkIncluded() throws Exception {
    ToolResult r = f.shell("(sleep 2.01; echo late > late.txt) > /dev/null 2>&1 & "
        + "setsid env -i /bin/sh -c 'sleep 2.02; echo x > escaped.txt' > /dev/null 2>&1 &");
    assertThat(r.content()).contains("background process(es) still running");
    Path project = f.project;
    f.close(); // what Waymark does as it exits
    Processes.awaitNone("sleep 2.01"); // stopped, or ended: either way nothing of theirs writes after this
    Processes.awaitNone("sleep 2.02");
    assertThat(project.resolve("late.txt")).doesNotExist();
    assertThat(project.resolve("escaped.txt")).doesNotExist();
    f = null;
    f = fixture(policy(List.of(), false, false));
  }

  @Test
  void aCommandWithNoJobsLeftReportsNone() {
    assertThat(f.shell("echo hi").content()).isEqualTo("hi\n[exit code 0]\n");
  }

  @Test
  void aTimeoutStopsTheWholeSandboxIncludingWhatLeftTheProcessTreeOrDroppedItsMark() throws Exception {
    String tag = "9" + (System.nanoTime() % 1000) + ".25";
    ToolResult r = f.call("run_shell", "command", "setsid sleep " + tag + " & (env -i /bin/sleep " + tag
        + " &) ; nohup sleep " + tag + " > /dev/null 2>&1 & sleep 30", "timeout_ms", 500);
    assertThat(r.content()).contains("[timed out after 500 ms");
    Eventually.until("the sleepers are gone", () -> sleepers(tag).isEmpty()); // they sleep 900 s and more
    assertThat(sleepers(tag)).isEmpty();
  }

  @Test
  void withoutBwrapCommandsRunAsBeforeAndTheNoticeNamesThePackage() throws IOException {
    ShellSandbox none = ShellSandbox.detect(policy(List.of(), false, false), "/nonexistent-bin");
    assertThat(none.confines()).isFalse();
    assertThat(none.notice()).get().asString().contains("not sandboxed").contains("bubblewrap")
        .contains("bwrap was not found on PATH");
    f.close();
    f = new ToolFixture(temp.resolve("nobwrap"), ToolSettings.DEFAULTS.withSandbox(none));
    ToolResult r = f.shell("echo x > " + outside.resolve("written"));
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(Files.exists(outside.resolve("written"))).isTrue();
    assertThat(f.tools.find("run_shell").orElseThrow().kind(ToolFixture.args("command", "true"))).isEqualTo(ToolKind.SHELL);
  }

  @Test
  void requiredModeRefusesCommandsWhenTheSandboxCannotStart() throws IOException {
    ShellSandbox none = ShellSandbox.detect(policy(List.of(), false, false).withMode(SandboxMode.REQUIRED), "/nonexistent-bin");
    assertThat(none.notice()).get().asString().contains("refused");
    f.close();
    f = new ToolFixture(temp.resolve("required"), ToolSettings.DEFAULTS.withSandbox(none));
    ToolResult r = f.shell("echo x > made.txt");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).startsWith("Not run: the sandbox is required");
    assertThat(f.exists("made.txt")).isFalse();
  }

  @Test
  void requiredModeRefusesCommandsWhenItsSocketFilterCannotBeUsedAndAutoRunsThemSayingSo() throws IOException {
    Path notADirectory = Files.writeString(outside.resolve("a-file"), ""); // the filter cannot be written below it
    SandboxPolicy required = new SandboxPolicy(SandboxMode.REQUIRED, List.of(), false, false, List.of(data),
        List.of(config), List.of(), notADirectory.resolve("private"));
    ShellSandbox unfiltered = ShellSandbox.detect(required, System.getenv("PATH"));
    assertThat(unfiltered.refuses()).isTrue();
    assertThat(unfiltered.notice()).get().asString().contains("refused", "seccomp");
    f.close();
    f = new ToolFixture(temp.resolve("unfiltered"), ToolSettings.DEFAULTS.withSandbox(unfiltered));
    ToolResult r = f.shell("echo x > made.txt");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).startsWith("Not run: the sandbox is required").contains("seccomp");
    assertThat(f.exists("made.txt")).isFalse();

    ShellSandbox auto = ShellSandbox.detect(required.withMode(SandboxMode.AUTO), System.getenv("PATH"));
    assertThat(auto.confines()).isTrue();
    assertThat(auto.notice()).get().asString().contains("Unix sockets outside the sandbox");
  }

  @Test
  void sandboxFalseRunsOutsideAndIsAlwaysSensitive() {
    Tool shell = f.tools.find("run_shell").orElseThrow();
    var outsideCall = ToolFixture.args("command", "echo x > " + outside.resolve("escaped"), "sandbox", false);
    assertThat(shell.kind(ToolFixture.args("command", "true"))).isEqualTo(ToolKind.SANDBOXED_SHELL);
    assertThat(shell.kind(outsideCall)).isEqualTo(ToolKind.SHELL);
    assertThat(shell.sensitive(outsideCall, f.project)).contains(Sensitive.OUTSIDE_SANDBOX);
    assertThat(Sensitive.OUTSIDE_SANDBOX.summary()).contains("outside the sandbox");
    ToolResult r = f.call("run_shell", outsideCall);
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(Files.exists(outside.resolve("escaped"))).isTrue();
  }

  private static List<ProcessHandle> sleepers(String tag) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains("sleep " + tag)).orElse(false)).toList();
  }

  private static void gitIn(Path dir, String... args) throws Exception {
    assertThat(git(dir, args)).isNotNull();
  }

  /** What {@code git -C dir args} printed; fails unless it ended well. */
  private static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(out).isZero();
    return out;
  }

  private void git(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", f.project.toString()));
    command.addAll(List.of(args));
    assertThat(new ProcessBuilder(command).inheritIO().start().waitFor()).isZero();
  }
}
