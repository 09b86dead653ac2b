package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one line the model gets when a command's output shows the sandbox refused something. */
class SandboxRefusalsTest {
  @Test
  void aRefusedWriteAMountPointAndAConnectionAreNamedAndOtherOutputIsLeftAlone() {
    assertThat(SandboxRefusals.explain("bash: /root/x: Read-only file system", true)).get().asString()
        .contains("refused a write").contains("\"sandbox\": false");
    assertThat(SandboxRefusals.explain("rm: cannot remove '/home/u/.local/share/waymark': Device or resource busy", true))
        .get().asString().contains("refused a write");
    assertThat(SandboxRefusals.explain("curl: (7) Failed to connect to 127.0.0.1 port 5432: Connection refused", true))
        .get().asString().contains("network connection").contains("localhost included");
    assertThat(SandboxRefusals.explain("curl: (7) Connection refused", false)).isEmpty(); // the network is on: not the sandbox
    assertThat(SandboxRefusals.explain("BUILD SUCCESS", true)).isEmpty();
  }

  @Test
  void aUnixSocketRefusedByTheFilterIsNamedOnlyWhileTheFilterIsOn() {
    String docker = "Cannot connect: dial unix /var/run/docker.sock: socket: operation not permitted";
    assertThat(SandboxRefusals.explain(docker, false, true)).get().asString().contains("a Unix socket")
        .contains("\"sandbox\": false");
    assertThat(SandboxRefusals.explain("  File \"/usr/lib/python3.11/socket.py\", line 232\nPermissionError: [Errno 1] "
        + "Operation not permitted", true, true)).get().asString().contains("a Unix socket");
    assertThat(SandboxRefusals.explain(docker, false, false)).isEmpty();
    assertThat(SandboxRefusals.explain("chmod: changing permissions of 'x': Operation not permitted", true, true)).isEmpty();
  }
}
