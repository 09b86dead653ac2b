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

  private static List<Path> absolute(List<Path> paths) {
    return paths == null ? List.of() : paths.stream().map(p -> p.toAbsolutePath().normalize()).distinct().toList();
  }
}
