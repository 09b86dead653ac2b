package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Unix sockets outside the sandbox, with the network off: none can be connected to, wherever it
 * lies (a Docker socket in the home directory, a database's socket under /var/lib), abstract ones
 * included; what a command does among its own processes (a connected pair, TCP inside) still works.
 */
@Tag("process")
class SandboxUnixSocketsTest {
  Path base;
  Path project;
  Path data;

  @BeforeEach
  void open() throws IOException {
    base = Files.createDirectories(Path.of("/var/tmp", "waymark-sockets-" + UUID.randomUUID()));
    project = Files.createDirectories(base.resolve("project")).toRealPath();
    data = Files.createDirectories(base.resolve("data"));
  }

  @AfterEach
  void close() throws IOException {
    try (var walk = Files.walk(base)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private ShellSandbox sandbox(boolean network) {
    return Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), network, false, List.of(data), List.of()));
  }

  static String run(ShellSandbox sandbox, Path project, String python) throws Exception {
    List<String> argv = sandbox.wrap(List.of("python3", "-c", python), project, false).argv();
    Process p = new ProcessBuilder(argv).directory(project.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out;
  }

  static String connect(Path socket) {
    return "import socket\ntry:\n  s = socket.socket(socket.AF_UNIX)\n  s.connect('" + socket + "')\n  print('CONNECTED')\n"
        + "except OSError as e:\n  print('REFUSED', e)\n";
  }

  @Test
  void aSocketOutsideRunCannotBeConnectedToWithTheNetworkOff() throws Exception {
    Path socket = base.resolve("docker.sock"); // as ~/.docker/desktop/docker.sock or /var/lib/mysql/mysql.sock
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      String out = run(sandbox(false), project, connect(socket));
      assertThat(out).as(out).contains("REFUSED").contains("Operation not permitted").doesNotContain("CONNECTED");
    }
  }

  @Test
  void aDatagramPairCannotBeTurnedToASocketOutside() throws Exception {
    Path socket = base.resolve("log.sock"); // as /dev/log or journald's socket
    Process server = new ProcessBuilder("python3", "-c", "import socket, sys\ns = socket.socket(socket.AF_UNIX, "
        + "socket.SOCK_DGRAM)\ns.bind('" + socket + "')\nprint('LISTENING', flush=True)\nsys.stdin.read()\n").start();
    try {
      assertThat(new String(server.getInputStream().readNBytes(10), StandardCharsets.UTF_8)).isEqualTo("LISTENING\n");
      String out = run(sandbox(false), project, "import socket\ntry:\n  a, b = socket.socketpair(socket.AF_UNIX, "
          + "socket.SOCK_DGRAM)\n  a.sendto(b'x', '" + socket + "')\n  print('CONNECTED')\nexcept OSError as e:\n"
          + "  print('REFUSED', e)\n");
      assertThat(out).as(out).contains("REFUSED").doesNotContain("CONNECTED");
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anAbstractSocketOutsideCannotBeReachedWithTheNetworkOff() throws Exception {
    String name = "waymark-test-" + UUID.randomUUID();
    Process server = new ProcessBuilder("python3", "-c", "import socket, sys\ns = socket.socket(socket.AF_UNIX)\n"
        + "s.bind('\\0" + name + "')\ns.listen(1)\nprint('LISTENING', flush=True)\nsys.stdin.read()\n").start();
    try {
      assertThat(new String(server.getInputStream().readNBytes(10), StandardCharsets.UTF_8)).isEqualTo("LISTENING\n");
      String out = run(sandbox(false), project, "import socket\ntry:\n  s = socket.socket(socket.AF_UNIX)\n  s.connect('\\0"
          + name + "')\n  print('CONNECTED')\nexcept OSError as e:\n  print('REFUSED', e)\n");
      assertThat(out).as(out).contains("REFUSED").doesNotContain("CONNECTED");
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void whatACommandDoesAmongItsOwnProcessesStillWorks() throws Exception {
    String out = run(sandbox(false), project, "import socket\na, b = socket.socketpair()\na.sendall(b'pair')\n"
        + "print(b.recv(4).decode())\nt = socket.socket(socket.AF_INET)\nt.bind(('127.0.0.1', 0))\nprint('TCP', t.getsockname()[1] > 0)\n"
        + "import subprocess\nprint(subprocess.run(['echo', 'child'], capture_output=True).stdout.decode().strip())\n");
    assertThat(out).as(out).contains("pair\n", "TCP True\n", "child\n");
  }

  @Test
  void aSocketTheUserNamesIsReachableEvenUnderRunAndStatusSaysTheFilterIsOff() throws Exception {
    Path listed = Path.of("/run", "waymark-listed-" + UUID.randomUUID() + ".sock");
    Path other = base.resolve("other.sock");
    try (var a = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        var b = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      a.bind(UnixDomainSocketAddress.of(listed));
      b.bind(UnixDomainSocketAddress.of(other));
      ShellSandbox sandbox = Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, List.of(data),
          List.of(), List.of(listed), data));
      assertThat(run(sandbox, project, connect(listed))).contains("CONNECTED");
      assertThat(sandbox.blocksUnixSockets()).isFalse();
      assertThat(sandbox.describe()).contains("Unix sockets are not blocked, as sandbox.unixSockets names " + listed
          + ": a command can connect to those and to any other socket it can see");
      assertThat(run(sandbox, project, connect(other))).as("as /status says: seccomp cannot tell one path from another")
          .contains("CONNECTED");
      assertThat(sandbox(false).describe()).contains("Unix sockets are blocked");

      Path dir = Files.createDirectories(base.resolve("sockets")); // a directory named by mistake: not made writable
      ShellSandbox named = Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, List.of(data),
          List.of(), List.of(dir), data));
      assertThat(run(named, project, "open('" + dir.resolve("x") + "', 'w')")).contains("Read-only file system");
      assertThat(dir.resolve("x")).doesNotExist();
    } finally {
      Files.deleteIfExists(listed);
    }
  }

  @Test
  void theFilterIsKeptInWaymarksDataAndACommandNeverStartsWithoutIt() throws Exception {
    Path socket = base.resolve("docker.sock");
    try (var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      ShellSandbox sandbox = Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, List.of(data),
          List.of(), List.of(), data));
      Path filter = sandbox.socketFilter().orElseThrow();
      assertThat(filter.getParent()).isEqualTo(data);
      Files.delete(filter); // the user cleaning up, or anything else
      assertThat(run(sandbox, project, connect(socket))).contains("REFUSED").doesNotContain("CONNECTED");
      assertThat(filter).exists();
    }
  }
}
