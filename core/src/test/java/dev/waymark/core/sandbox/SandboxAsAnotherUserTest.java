package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's boundaries for a user without privileges, where bwrap needs user namespaces. CI
 * runs as root, so there the sandboxed command is started as {@code nobody} (uid 65534) through
 * {@code setpriv}; every place it is refused is one that {@code nobody} could write without it.
 */
class SandboxAsAnotherUserTest {
  static final int NOBODY = 65534;
  Path base;

  @BeforeEach
  void open() throws IOException {
    base = Files.createDirectories(Path.of("/var/tmp", "waymark-sandbox-user-" + UUID.randomUUID()));
  }

  @AfterEach
  void close() throws IOException {
    try (var walk = Files.walk(base)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** A shell word: python connecting to the Unix socket SOCKET, saying whether it could. */
  static final String UNIX_CONNECT = "'import socket\ntry:\n  s = socket.socket(socket.AF_UNIX)\n  s.connect(\"SOCKET\")\n"
      + "  print(\"UNIX-CONNECTED\")\nexcept OSError as e:\n  print(\"UNIX-REFUSED\", e)\n'";

  @Test
  void anUnprivilegedUsersCommandKeepsToTheProjectAndHasNoNetwork() throws Exception {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path project = Files.createDirectories(base.resolve("project"));
    Files.createDirectories(project.resolve(".git"));
    Path outside = Files.createDirectories(base.resolve("outside"));
    Path data = Files.createDirectories(base.resolve("data"));
    Files.writeString(data.resolve("session.json"), "{}\n");
    Path home = Files.createDirectories(base.resolve("home/.ssh")).getParent();
    Path key = Files.writeString(home.resolve(".ssh/id_ed25519"), "PRIVATE-KEY\n");
    Path netrc = Files.writeString(home.resolve(".netrc"), "machine x password PRIVATE-NETRC\n");
    if (root) {
      for (Path p : List.of(base, project, project.resolve(".git"), outside, data, data.resolve("session.json"), home,
          home.resolve(".ssh"), key, netrc)) {
        Files.setAttribute(p, "unix:uid", NOBODY);
        Files.setAttribute(p, "unix:gid", NOBODY);
      }
    }
    List<Path> hidden = new ArrayList<>(SandboxPolicy.secretsIn(home));
    hidden.add(data);
    ShellSandbox sandbox = Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, hidden,
        List.of(), List.of(), data));
    Path socket = outside.resolve("docker.sock");
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        var unix = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      unix.bind(UnixDomainSocketAddress.of(socket));
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rwxrwxrwx")); // anyone's, as Docker's group
      String script = String.join("\n",
          "id -u",
          "echo p > p.txt && echo PROJECT-WRITTEN",
          "echo x > " + outside.resolve("x") + " || echo OUTSIDE-REFUSED",
          "echo x > .git/x || echo GIT-REFUSED",
          "echo DATA-ENTRIES $(ls -A " + data + " | wc -l)",
          "echo x > " + data.resolve("new") + " || echo DATA-REFUSED",
          "rm -rf " + data + " || echo DATA-KEPT",
          "(exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + ") 2>/dev/null && echo CONNECTED || echo NO-NETWORK",
          "python3 -c " + UNIX_CONNECT.replace("SOCKET", socket.toString()),
          "cat " + key + " " + netrc + "; echo SECRETS-READ");
      List<String> argv = new ArrayList<>();
      if (root) {
        argv.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
      }
      argv.addAll(sandbox.wrap(List.of("/bin/bash", "-c", script), project.toRealPath(), false).argv());
      Process p = new ProcessBuilder(argv).directory(project.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

      if (root) {
        assertThat(out).as(out).startsWith(NOBODY + "\n");
        Process control = new ProcessBuilder("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
            "/bin/bash", "-c", "python3 -c " + UNIX_CONNECT.replace("SOCKET", socket.toString())).redirectErrorStream(true).start();
        assertThat(new String(control.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
            .as("outside the sandbox, the same user reaches it").contains("UNIX-CONNECTED");
        assertThat(control.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(out).as(out).contains("PROJECT-WRITTEN", "OUTSIDE-REFUSED", "GIT-REFUSED", "DATA-ENTRIES 0",
          "DATA-REFUSED", "DATA-KEPT", "NO-NETWORK", "UNIX-REFUSED", "SECRETS-READ").doesNotContain("CONNECTED\n")
          .doesNotContain("PRIVATE-");
      assertThat(project.resolve("p.txt")).hasContent("p");
      assertThat(outside.resolve("x")).doesNotExist();
      assertThat(project.resolve(".git/x")).doesNotExist();
      assertThat(data.resolve("session.json")).exists();
      assertThat(data.resolve("new")).doesNotExist();
    }
  }

  @Test
  void anUnprivilegedUsersCommandInALinkedWorkTreeWithGitWritableCommitsButLeavesNoProgramInTheMainRepository()
      throws Exception {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path main = Files.createDirectories(base.resolve("main"));
    git(main, "init", "-q", "-b", "main");
    Files.writeString(main.resolve("a.txt"), "a\n");
    git(main, "add", "a.txt");
    git(main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
    Path project = base.resolve("project");
    git(main, "worktree", "add", "-q", "-b", "side", project.toString());
    Path data = Files.createDirectories(base.resolve("data"));
    if (root) {
      try (var all = Files.walk(base)) {
        for (Path p : all.toList()) {
          Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
          Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
    String settings = Files.readString(main.resolve(".git/config"));
    ShellSandbox sandbox = Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, true, List.of(data),
        List.of(), List.of(), data));
    String script = "common=$(git rev-parse --git-common-dir); git config core.fsmonitor 'touch pwned';"
        + " printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> $common/config;"
        + " printf '#!/bin/sh\\ntouch pwned\\n' > $common/hooks/post-checkout;"
        + " echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm two && echo COMMITTED";
    List<String> argv = new ArrayList<>();
    if (root) {
      argv.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
    }
    ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/bash", "-c", script), project.toRealPath(), false);
    argv.addAll(wrapped.argv());
    Process p = new ProcessBuilder(argv).directory(project.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    wrapped.removePlaceholders();

    assertThat(out).as(out).contains("COMMITTED", "Read-only file system");
    assertThat(Files.readString(main.resolve(".git/config"))).isEqualTo(settings);
    assertThat(main.resolve(".git/hooks/post-checkout")).doesNotExist();
    assertThat(main.resolve(".git/worktrees/project/config.worktree")).doesNotExist();
    assertThat(git(main, "log", "--format=%s", "side")).isEqualTo("two\none\n");
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-c", "safe.directory=*", "-C", dir.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(out).isZero();
    return out;
  }

  @Test
  void planModesReadOnlyCommandOfAnUnprivilegedUserReadsNoSecretAndWritesNothing() throws Exception {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path project = Files.createDirectories(base.resolve("project"));
    Path data = Files.createDirectories(base.resolve("data"));
    Path home = Files.createDirectories(base.resolve("home/.ssh")).getParent();
    Path key = Files.writeString(home.resolve(".ssh/id_ed25519"), "PRIVATE-KEY\n");
    Path env = Files.writeString(project.resolve(".env"), "PRIVATE-ENV\n");
    Path envDir = Files.createDirectories(project.resolve("deploy/.env.prod"));
    Path envKey = Files.writeString(envDir.resolve("token"), "PRIVATE-TOKEN\n");
    Path readme = Files.writeString(project.resolve("README"), "readme\n");
    if (root) {
      for (Path p : List.of(base, project, data, home, home.resolve(".ssh"), key, env, project.resolve("deploy"), envDir,
          envKey, readme)) {
        Files.setAttribute(p, "unix:uid", NOBODY);
        Files.setAttribute(p, "unix:gid", NOBODY);
      }
    }
    List<Path> hidden = new ArrayList<>(SandboxPolicy.secretsIn(home));
    hidden.add(data);
    ShellSandbox sandbox = Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, hidden,
        List.of(), List.of(), data));
    String script = String.join("\n",
        "cat README",
        "cat " + key + " .env deploy/.env.prod/token; grep -r PRIVATE . ; echo SECRETS-READ",
        "echo p > p.txt || echo PROJECT-REFUSED",
        "echo x > .env || echo ENV-REFUSED");
    List<String> argv = new ArrayList<>();
    if (root) {
      argv.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
    }
    argv.addAll(sandbox.wrap(List.of("/bin/bash", "-c", script), project.toRealPath(), false, true).argv());
    Process p = new ProcessBuilder(argv).directory(project.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(out).as(out).contains("readme", "SECRETS-READ", "PROJECT-REFUSED", "ENV-REFUSED").doesNotContain("PRIVATE-");
    assertThat(project.resolve("p.txt")).doesNotExist();
    assertThat(env).hasContent("PRIVATE-ENV");
  }
}
