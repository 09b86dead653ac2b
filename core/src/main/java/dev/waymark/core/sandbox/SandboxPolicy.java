package dev.waymark.core.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What a sandboxed command may touch besides the project and its private {@code /tmp}.
 *
 * @param mode whether commands run in the sandbox at all
 * @param writable directories a command may write (caches such as {@code ~/.m2}); missing ones are left out
 * @param network whether a command may use the network (off: not even servers on localhost)
 * @param gitWritable whether a command may write the project's {@code .git} (commit, checkout)
 * @param hidden directories and files a command must neither see nor change: Waymark's data directory, key files,
 *     the user's secrets
 * @param readOnly directories a command may read but never change, even inside a writable one: Waymark's config
 * @param unixSockets the Unix sockets the user wants commands to reach; while there are none, no command can make a
 *     Unix socket at all (a seccomp filter: it cannot tell one path from another, so naming any turns it off)
 * @param privateDir a directory of Waymark's that commands never see (its data directory), where the sandbox keeps
 *     its seccomp program; null: a temporary one of this process
 */
public record SandboxPolicy(SandboxMode mode, List<Path> writable, boolean network, boolean gitWritable,
    List<Path> hidden, List<Path> readOnly, List<Path> unixSockets, Path privateDir) {

  /** No sandbox: commands run with the user's rights. */
  public static final SandboxPolicy OFF = new SandboxPolicy(SandboxMode.OFF, List.of(), true, true, List.of(), List.of());

  public SandboxPolicy {
    Objects.requireNonNull(mode);
    writable = absolute(writable);
    hidden = absolute(hidden);
    readOnly = absolute(readOnly);
    unixSockets = absolute(unixSockets);
    privateDir = privateDir == null ? null : privateDir.toAbsolutePath().normalize();
  }

  /** A policy that lists no Unix socket and keeps its seccomp program in a temporary directory. */
  public SandboxPolicy(SandboxMode mode, List<Path> writable, boolean network, boolean gitWritable, List<Path> hidden,
      List<Path> readOnly) {
    this(mode, writable, network, gitWritable, hidden, readOnly, List.of(), null);
  }

  /** The default policy (mode {@code auto}, nothing writable besides the project, no network), protecting these. */
  public static SandboxPolicy protecting(Path dataDir, Path configDir) {
    return new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, List.of(dataDir), List.of(configDir), List.of(),
        dataDir);
  }

  public SandboxPolicy withMode(SandboxMode newMode) {
    return new SandboxPolicy(newMode, writable, network, gitWritable, hidden, readOnly, unixSockets, privateDir);
  }

  /** This policy with these Unix sockets reachable (none: every one blocked). */
  public SandboxPolicy withUnixSockets(List<Path> sockets) {
    return new SandboxPolicy(mode, writable, network, gitWritable, hidden, readOnly, sockets, privateDir);
  }

  /**
   * Where secrets usually are, from the home directory: keys and tokens of ssh, clouds, clusters,
   * registries, package indexes and other agents, and the browsers' profiles (cookies, saved
   * passwords). A command run unasked could print any of them into the model's context.
   */
  public static final List<String> SECRETS = List.of(".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube",
      ".docker/config.json", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".config/gh", ".cargo/credentials.toml",
      ".vault-token", ".password-store", ".local/share/keyrings", ".claude/.credentials.json", ".codex/auth.json",
      ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
      ".config/microsoft-edge");

  /** {@link #SECRETS} in {@code home}. */
  public static List<Path> secretsIn(Path home) {
    return SECRETS.stream().map(home::resolve).toList();
  }

  private static List<Path> absolute(List<Path> paths) {
    return paths == null ? List.of() : paths.stream().map(p -> p.toAbsolutePath().normalize()).distinct().toList();
  }
}
