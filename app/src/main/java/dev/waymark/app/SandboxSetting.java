package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.sandbox.SandboxMode;
import dev.waymark.core.sandbox.SandboxPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where shell commands run: {@code mode} auto (the sandbox where it can start), required (refuse
 * commands without it) or off; {@code writable} directories besides the project and /tmp
 * (absolute, or from {@code ~/}); {@code network}; {@code gitWritable} opens the project's .git;
 * {@code unixSockets}, the sockets commands may reach (naming any lets them reach every socket they
 * can see: a seccomp filter cannot tell one path from another); {@code hidden}, paths commands
 * cannot see besides the usual secret locations ({@link SandboxPolicy#SECRETS}); {@code visible},
 * those of the usual locations commands may see after all.
 */
record SandboxSetting(String mode, List<String> writable, Boolean network, Boolean gitWritable,
    List<String> unixSockets, List<String> hidden, List<String> visible) {
  static final SandboxSetting NONE = new SandboxSetting(null, List.of(), null, null, List.of(), List.of(), List.of());

  SandboxSetting {
    writable = writable == null ? List.of() : List.copyOf(writable);
    unixSockets = unixSockets == null ? List.of() : List.copyOf(unixSockets);
    hidden = hidden == null ? List.of() : List.copyOf(hidden);
    visible = visible == null ? List.of() : List.copyOf(visible);
  }

  /** These values with every one {@code later} sets taking its place; lists of paths add up. */
  SandboxSetting overriddenBy(SandboxSetting later) {
    if (later == null) {
      return this;
    }
    return new SandboxSetting(later.mode() != null ? later.mode() : mode, union(writable, later.writable()),
        later.network() != null ? later.network() : network,
        later.gitWritable() != null ? later.gitWritable() : gitWritable, union(unixSockets, later.unixSockets()),
        union(hidden, later.hidden()), union(visible, later.visible()));
  }

  /**
   * What an untrusted project's setting may keep: anything that confines commands more (mode
   * required, network or .git closed, more paths hidden). Turning the sandbox off, opening the
   * network or .git, another writable directory, a reachable socket or a visible secret would let a
   * cloned repository's commands reach outside it; what was dropped is named in {@code ignored}.
   */
  SandboxSetting tightenedOnly(List<String> ignored) {
    String m = mode;
    if (m != null && !"required".equalsIgnoreCase(m)) {
      ignored.add("sandbox.mode \"" + m + "\"");
      m = null;
    }
    if (!writable.isEmpty()) {
      ignored.add("sandbox.writable");
    }
    Boolean net = network;
    if (Boolean.TRUE.equals(net)) {
      ignored.add("sandbox.network");
      net = null;
    }
    Boolean git = gitWritable;
    if (Boolean.TRUE.equals(git)) {
      ignored.add("sandbox.gitWritable");
      git = null;
    }
    if (!unixSockets.isEmpty()) {
      ignored.add("sandbox.unixSockets");
    }
    if (!visible.isEmpty()) {
      ignored.add("sandbox.visible");
    }
    return new SandboxSetting(m, List.of(), net, git, List.of(), hidden, List.of());
  }

  /** A value of the file that cannot be used: where it stands (a JSON pointer) and what is wrong. */
  record Problem(String pointer, String message) {}

  /** The first value that cannot be used, if any. */
  Optional<Problem> problem() {
    if (mode != null) {
      try {
        SandboxMode.parse(mode);
      } catch (IllegalArgumentException e) {
        return Optional.of(new Problem("/sandbox/mode", e.getMessage()));
      }
    }
    for (int i = 0; i < writable.size(); i++) {
      if (!isPath(writable.get(i))) {
        return Optional.of(new Problem("/sandbox/writable/" + i, "sandbox.writable: \"" + writable.get(i)
            + "\" is not a directory path: give it from / or from ~/ (e.g. \"~/.m2\")."));
      }
    }
    for (String list : List.of("unixSockets", "hidden", "visible")) {
      List<String> paths = list.equals("unixSockets") ? unixSockets : list.equals("hidden") ? hidden : visible;
      for (int i = 0; i < paths.size(); i++) {
        if (!isPath(paths.get(i))) {
          return Optional.of(new Problem("/sandbox/" + list + "/" + i, "sandbox." + list + ": \"" + paths.get(i)
              + "\" is not a path: give it from / or from ~/ (e.g. \"" + (list.equals("unixSockets")
              ? "/var/run/docker.sock" : "~/.ssh") + "\")."));
        }
      }
    }
    Path userHome = Path.of(System.getProperty("user.home"));
    for (int i = 0; i < visible.size(); i++) {
      if (!SandboxPolicy.secretsIn(userHome).contains(expand(visible.get(i), userHome).normalize())) {
        return Optional.of(new Problem("/sandbox/visible/" + i, "sandbox.visible: \"" + visible.get(i) + "\" is not one "
            + "of the paths hidden by default (~/" + String.join(", ~/", SandboxPolicy.SECRETS) + "); Waymark's own "
            + "data and key files stay hidden."));
      }
    }
    return Optional.empty();
  }

  /**
   * The policy: Waymark's data directory (where the sandbox also keeps its seccomp program),
   * {@code keyFiles}, the usual secret locations but the visible ones, and the hidden paths hidden;
   * {@code configDir} read-only; {@code ~/} is {@code userHome}. The usual locations are hidden in
   * {@code otherHome} too (the {@code HOME} commands get, when it is not Java's {@code user.home}).
   */
  SandboxPolicy policy(WaymarkHome home, Path configDir, List<String> keyFiles, Path userHome, Optional<Path> otherHome) {
    List<Path> hidden = new ArrayList<>(List.of(home.root()));
    keyFiles.forEach(f -> hidden.add(expand(f, userHome)));
    List<String> opened = visible.stream().map(v -> userHome.relativize(expand(v, userHome).normalize()).toString()).toList();
    for (Path each : otherHome.filter(h -> !h.equals(userHome)).map(h -> List.of(userHome, h)).orElse(List.of(userHome))) {
      SandboxPolicy.SECRETS.stream().filter(p -> !opened.contains(p)).forEach(p -> hidden.add(each.resolve(p)));
    }
    this.hidden.forEach(h -> hidden.add(expand(h, userHome)));
    return new SandboxPolicy(mode == null ? SandboxMode.AUTO : SandboxMode.parse(mode),
        writable.stream().map(d -> expand(d, userHome)).toList(), Boolean.TRUE.equals(network),
        Boolean.TRUE.equals(gitWritable), hidden, List.of(configDir),
        unixSockets.stream().map(s -> expand(s, userHome)).toList(), home.root());
  }

  private static boolean isPath(String path) {
    return path != null && (path.startsWith("/") || path.startsWith("~/") || path.equals("~"));
  }

  static Path expand(String path, Path userHome) {
    return path.equals("~") ? userHome : path.startsWith("~/") ? userHome.resolve(path.substring(2)) : Path.of(path);
  }

  private static List<String> union(List<String> first, List<String> later) {
    List<String> all = new ArrayList<>(first);
    later.stream().filter(p -> !all.contains(p)).forEach(all::add);
    return all;
  }
}
