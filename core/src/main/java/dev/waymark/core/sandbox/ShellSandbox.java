package dev.waymark.core.sandbox;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The sandbox as found on this machine: the policy, and either the {@code bwrap} that enforces it
 * or why there is none. Commands are wrapped by {@link #wrap}; what to tell the user once, by
 * {@link #notice}.
 *
 * <p>The sandbox is one pid namespace per command ({@code --unshare-pid}): its first process
 * ({@code bwrap} as init) keeps the command's background jobs alive after the command returns,
 * carries the command's mark in its environment like they do, and takes every one of them with it
 * when it is killed, so stopping the marked processes leaves none behind. {@code --die-with-parent}
 * is not used: bwrap's init dies with the outer {@code bwrap} as soon as the command returns, which
 * would kill the background jobs Waymark records later.
 */
public record ShellSandbox(SandboxPolicy policy, Optional<Path> bwrap, String unavailable) {
  /** The Debian/Ubuntu/Fedora/Arch package that holds {@code bwrap}. */
  public static final String PACKAGE = "bubblewrap";

  /** No sandbox, on purpose. */
  public static final ShellSandbox OFF = new ShellSandbox(SandboxPolicy.OFF, Optional.empty(), "");

  public ShellSandbox {
    java.util.Objects.requireNonNull(policy);
    java.util.Objects.requireNonNull(bwrap);
    unavailable = unavailable == null ? "" : unavailable;
  }

  /**
   * The sandbox {@code policy} asks for, with the {@code bwrap} found on {@code pathVariable} (the
   * {@code PATH} to look on) if it can start one here: tried once with a command that does nothing.
   */
  public static ShellSandbox detect(SandboxPolicy policy, String pathVariable) {
    if (policy.mode() == SandboxMode.OFF) {
      return new ShellSandbox(policy, Optional.empty(), "");
    }
    String os = System.getProperty("os.name", "");
    if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
      return new ShellSandbox(policy, Optional.empty(), "the sandbox needs Linux and bwrap, and this is " + os);
    }
    Optional<Path> found = find(pathVariable);
    if (found.isEmpty()) {
      return new ShellSandbox(policy, Optional.empty(), "bwrap was not found on PATH (install the package " + PACKAGE + ")");
    }
    String failure = tryOnce(found.get());
    if (failure != null) {
      return new ShellSandbox(policy, Optional.empty(), "bwrap cannot start a sandbox here (" + failure
          + "); user namespaces may be disabled on this system");
    }
    return new ShellSandbox(policy, found, "");
  }

  /** Whether commands run in the sandbox. */
  public boolean confines() {
    return policy.mode() != SandboxMode.OFF && bwrap.isPresent();
  }

  /** One line for /status and the model's system prompt: what fences shell commands here. */
  public String describe() {
    if (confines()) {
      return "bwrap: the file system is read-only but for the project, a private /tmp"
          + (policy.writable().isEmpty() ? "" : " and " + policy.writable().size() + " declared directories")
          + "; .git" + (policy.gitWritable() ? " is writable" : " and .waymark are read-only")
          + "; a command may ask to run outside the sandbox, which the user approves";
    }
    if (refuses()) {
      return "required but unavailable (" + unavailable + "): shell commands are refused";
    }
    if (policy.mode() == SandboxMode.OFF) {
      return "off by the user's settings: shell commands run with the user's rights (what they change in the project is "
          + "still recorded)";
    }
    return "none (" + unavailable + "): shell commands run with the user's rights (what they change in the project is "
        + "still recorded)";
  }

  /** One line for the model: whether commands reach the network. */
  public String describeNetwork() {
    return !confines() ? "not restricted" : policy.network() ? "on inside the sandbox"
        : "off inside the sandbox (localhost included); a command outside the sandbox, which the user approves, has it";
  }

  /** Whether commands are refused: the sandbox is required and cannot start. */
  public boolean refuses() {
    return policy.mode() == SandboxMode.REQUIRED && bwrap.isEmpty();
  }

  /** What the user is told once when commands cannot run as the settings ask; empty when they can. */
  public Optional<String> notice() {
    if (policy.mode() == SandboxMode.AUTO && bwrap.isEmpty()) {
      return Optional.of("Shell commands are not sandboxed: " + unavailable + ". They run with your rights, and the "
          + "approval mode auto asks for them as auto-edit does. Install " + PACKAGE + " (apt-get install " + PACKAGE
          + "), or set \"sandbox\": {\"mode\": \"off\"} to silence this.");
    }
    if (refuses()) {
      return Optional.of("Shell commands are refused: the sandbox is required (\"sandbox\": {\"mode\": \"required\"}) "
          + "and cannot start: " + unavailable + ".");
    }
    return Optional.empty();
  }

  /** Why the sandbox cannot start; empty when it can or is off. */
  public String unavailable() {
    return unavailable;
  }

  /**
   * {@code argv} to run in the sandbox, in {@code project} (a real path), with the network if
   * {@code network} or the policy allows it. Directories that must be protected but do not exist
   * get an empty read-only mount point, listed in the result so that it can be removed afterwards.
   */
  public Wrapped wrap(List<String> argv, Path project, boolean network) {
    if (!confines()) {
      throw new IllegalStateException("no sandbox to run in: " + unavailable);
    }
    List<String> args = new ArrayList<>(List.of(bwrap.get().toString(),
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"));
    boolean offline = !network && !policy.network();
    // A read-only file system still lets a command connect to the sockets on it (a Docker or
    // systemd --user socket runs anything outside): without the network, none of /run is kept;
    // with it, the users' own runtime directories are hidden still.
    Path run = Path.of(offline ? "/run" : "/run/user");
    if (Files.isDirectory(run)) {
      add(args, "--tmpfs", run);
    }
    for (Path dir : policy.writable()) {
      real(dir).ifPresent(r -> add(args, "--bind", r, r));
    }
    List<Path> hidden = new ArrayList<>();
    for (Path path : policy.hidden()) {
      real(path).filter(r -> !r.equals(project)).ifPresent(r -> {
        if (Files.isDirectory(r)) {
          add(args, "--tmpfs", r);
          hidden.add(r);
        } else {
          add(args, "--ro-bind", "/dev/null", r); // a key file: a device on a nodev mount, which opens for nobody
        }
      });
    }
    add(args, "--bind", project, project);
    List<Path> placeholders = new ArrayList<>();
    Path git = project.resolve(".git");
    if (Files.isSymbolicLink(git)) {
      real(git).ifPresent(r -> add(args, policy.gitWritable() ? "--bind" : "--ro-bind", r, r));
    } else if (Files.isDirectory(git, LinkOption.NOFOLLOW_LINKS)) {
      if (!policy.gitWritable()) {
        add(args, "--ro-bind", git, git);
      }
    } else if (Files.isRegularFile(git, LinkOption.NOFOLLOW_LINKS)) {
      // a work tree or submodule: .git names the real directory, which may lie inside a writable place
      add(args, "--ro-bind", git, git); // never rewritten to point elsewhere
      for (Path dir : gitDirs(git)) {
        add(args, policy.gitWritable() ? "--bind" : "--ro-bind", dir, dir);
      }
    }
    Path own = project.resolve(".waymark");
    if (Files.exists(own, LinkOption.NOFOLLOW_LINKS)) {
      add(args, "--ro-bind", own, own);
    } else {
      // cannot be bound read-only before it exists; an empty read-only one keeps a command from making it
      add(args, "--tmpfs", own, "--remount-ro", own);
      placeholders.add(own);
    }
    for (Path dir : policy.readOnly()) {
      real(dir).ifPresent(r -> add(args, "--ro-bind", r, r));
    }
    for (Path dir : hidden) {
      add(args, "--remount-ro", dir);
    }
    if (offline) {
      args.add("--unshare-net");
    }
    // as root, bwrap would leave the command every capability, and umount would undo the sandbox
    args.addAll(List.of("--unshare-pid", "--new-session", "--cap-drop", "ALL", "--chdir", project.toString(), "--"));
    args.addAll(argv);
    return new Wrapped(List.copyOf(args), List.copyOf(placeholders));
  }

  /** A command line to start, and the empty mount points it makes in the project. */
  public record Wrapped(List<String> argv, List<Path> placeholders) {
    /** Removes the mount points the sandbox made, if still empty: Waymark leaves nothing in the project. */
    public void removePlaceholders() {
      for (Path dir : placeholders) {
        try {
          Files.deleteIfExists(dir); // refused while anything is in it
        } catch (IOException stillUsed) {
          // kept: a process of the sandbox still holds it, or the user made it meanwhile
        }
      }
    }
  }

  /** The git directory (and its common directory) a {@code gitdir:} file names. */
  private static List<Path> gitDirs(Path gitFile) {
    List<Path> dirs = new ArrayList<>();
    try {
      String text = Files.readString(gitFile, StandardCharsets.UTF_8).trim();
      if (!text.startsWith("gitdir:")) {
        return dirs;
      }
      Path dir = gitFile.getParent().resolve(text.substring("gitdir:".length()).trim()).normalize();
      real(dir).ifPresent(dirs::add);
      Path common = dir.resolve("commondir");
      if (Files.isRegularFile(common)) {
        real(dir.resolve(Files.readString(common, StandardCharsets.UTF_8).trim()).normalize()).ifPresent(dirs::add);
      }
    } catch (IOException | java.nio.file.InvalidPathException e) {
      // unreadable: the .git file itself stays read-only
    }
    return dirs;
  }

  private static Optional<Path> real(Path dir) {
    try {
      return Optional.of(dir.toRealPath());
    } catch (IOException missing) {
      return Optional.empty();
    }
  }

  private static void add(List<String> args, Object... values) {
    for (Object value : values) {
      args.add(value.toString());
    }
  }

  /** {@code bwrap} on {@code pathVariable}. */
  static Optional<Path> find(String pathVariable) {
    if (pathVariable == null) {
      return Optional.empty();
    }
    for (String dir : pathVariable.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, "bwrap");
        if (Files.isExecutable(candidate)) {
          return Optional.of(candidate.toAbsolutePath());
        }
      }
    }
    return Optional.empty();
  }

  /** Null when {@code bwrap} starts an empty sandbox of the kind commands get; else its first line of complaint. */
  private static String tryOnce(Path bwrap) {
    try {
      Process p = new ProcessBuilder(bwrap.toString(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
          "--tmpfs", "/tmp", "--unshare-net", "--unshare-pid", "--new-session", "--cap-drop", "ALL", "--", "/bin/sh", "-c", ":")
          .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
      byte[] out = p.getInputStream().readNBytes(4096);
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "it did not answer within 10 s";
      }
      if (p.exitValue() == 0) {
        return null;
      }
      String text = new String(out, StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? "exit status " + p.exitValue() : text.lines().findFirst().orElse(text);
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }
}
