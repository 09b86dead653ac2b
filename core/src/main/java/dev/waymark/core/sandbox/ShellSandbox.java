package dev.waymark.core.sandbox;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The sandbox as found on this machine: the policy, and either the {@code bwrap} that enforces it
 * or why there is none. Commands are wrapped by {@link #wrap}; what to tell the user once, by
 * {@link #notice}.
 *
 * <p>The sandbox is one pid namespace per command ({@code --unshare-pid}): its first process
 * ({@code bwrap} as init) keeps the command's background jobs alive after the command returns,
 * carries the command's mark in its environment like they do, and takes every one of them with it
 * when it is killed, so stopping the marked processes leaves none behind. A command's sandbox has no
 * {@code --die-with-parent}: bwrap's init dies with the outer {@code bwrap} as soon as the command
 * returns, which would kill the background jobs Waymark records later. What has none to keep (the
 * user's {@code waymark shell}, a bisect's candidate) is wrapped with it ({@link #wrapTied}), so
 * that nothing of it outlives the Waymark that started it, even one killed.
 *
 * <p>Unix sockets: a read-only file system still lets a command connect to the sockets on it, so
 * unless the user names sockets to reach, bwrap loads a {@link SocketFilter} that refuses to make
 * one. bwrap reads it from a file descriptor, which Java cannot hand a child: the command line
 * starts with {@link #OPENER}, a shell that opens the filter's file on fd 9 and execs the rest.
 *
 * @param socketFilter the file of the seccomp program commands get; empty when none is loaded
 * @param unfiltered why Unix sockets are not blocked, when they are not and the user did not ask for it; else empty
 */
public record ShellSandbox(SandboxPolicy policy, Optional<Path> bwrap, String unavailable, Optional<Path> socketFilter,
    String unfiltered) {
  /** The Debian/Ubuntu/Fedora/Arch package that holds {@code bwrap}. */
  public static final String PACKAGE = "bubblewrap";

  /** No sandbox, on purpose. */
  public static final ShellSandbox OFF = new ShellSandbox(SandboxPolicy.OFF, Optional.empty(), "");

  /** The shell that opens the file ($0) on fd 9 for {@code bwrap --seccomp 9} and execs the command line after it. */
  static final List<String> OPENER = List.of("/bin/sh", "-c", "exec \"$@\" 9<\"$0\"");
  private static final String FILTER_FD = "9";

  public ShellSandbox {
    Objects.requireNonNull(policy);
    Objects.requireNonNull(bwrap);
    Objects.requireNonNull(socketFilter);
    unavailable = unavailable == null ? "" : unavailable;
    unfiltered = unfiltered == null ? "" : unfiltered;
  }

  public ShellSandbox(SandboxPolicy policy, Optional<Path> bwrap, String unavailable) {
    this(policy, bwrap, unavailable, Optional.empty(), "");
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
    if (!policy.unixSockets().isEmpty()) {
      return started(policy, found.get(), "");
    }
    Optional<SocketFilter> program = SocketFilter.here();
    if (program.isEmpty()) {
      return started(policy, found.get(), "Waymark has no seccomp program for this machine ("
          + System.getProperty("os.arch") + ")");
    }
    Path file;
    try {
      file = PrivateFiles.filter(policy, program.get());
    } catch (IOException e) {
      return started(policy, found.get(), "the seccomp program could not be written: " + e.getMessage());
    }
    if (tryOnce(found.get(), Optional.of(file)) == null) {
      return new ShellSandbox(policy, found, "", Optional.of(file), "");
    }
    return started(policy, found.get(), "bwrap could not load the seccomp program here");
  }

  /** The sandbox without a socket filter ({@code unfiltered} says why), if bwrap starts one at all. */
  private static ShellSandbox started(SandboxPolicy policy, Path bwrap, String unfiltered) {
    if (policy.mode() == SandboxMode.REQUIRED && !unfiltered.isEmpty()) {
      // required means the whole boundary or nothing: without the filter, sockets outside are reachable
      return new ShellSandbox(policy, Optional.empty(), "its seccomp filter, which keeps commands from the Unix sockets"
          + " outside, cannot be used: " + unfiltered);
    }
    String failure = tryOnce(bwrap, Optional.empty());
    if (failure != null) {
      return new ShellSandbox(policy, Optional.empty(), "bwrap cannot start a sandbox here (" + failure
          + "); user namespaces may be disabled on this system");
    }
    return new ShellSandbox(policy, Optional.of(bwrap), "", Optional.empty(), unfiltered);
  }

  /** Whether commands cannot make a Unix socket. */
  public boolean blocksUnixSockets() {
    return confines() && socketFilter.isPresent() && policy.unixSockets().isEmpty();
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
          + "; " + describeHidden() + "; " + describeUnixSockets()
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

  /** What commands cannot see, of what exists now: Waymark's data, key files, the user's secrets. */
  public String describeHidden() {
    String home = System.getProperty("user.home", "");
    List<String> names = hiddenPaths().stream().filter(p -> Files.exists(p, LinkOption.NOFOLLOW_LINKS))
        .map(p -> !home.isEmpty() && p.startsWith(home) && !p.toString().equals(home)
            ? "~/" + Path.of(home).relativize(p) : p.toString())
        .toList();
    return names.isEmpty() ? "nothing is hidden" : "hidden (empty inside): " + String.join(", ", names);
  }

  /** What a command can connect to among the Unix sockets outside the sandbox. */
  public String describeUnixSockets() {
    if (blocksUnixSockets()) {
      return "Unix sockets are blocked (a command cannot make one, so it reaches none outside the sandbox)";
    }
    if (!policy.unixSockets().isEmpty()) {
      return "Unix sockets are not blocked, as sandbox.unixSockets names " + String.join(", ",
          policy.unixSockets().stream().map(Path::toString).toList()) + ": a command can connect to those and to any "
          + "other socket it can see (all but those under " + (policy.network() ? "/run/user" : "/run")
          + ", /tmp and the hidden paths)";
    }
    return "Unix sockets are NOT blocked (" + unfiltered + "): a command can connect to any socket it can see (all but "
        + "those under " + (policy.network() ? "/run/user" : "/run") + ", /tmp and the hidden paths)";
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
    if (confines() && !unfiltered.isEmpty()) {
      return Optional.of("Sandboxed commands can reach Unix sockets outside the sandbox: " + unfiltered + ".");
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
    return wrap(argv, project, network, false);
  }

  /**
   * As {@link #wrap(List, Path, boolean)}, with the project mounted read-only when {@code readOnly}
   * (plan mode: a command looks around and changes nothing, so there is nothing to capture). Nothing
   * inside a read-only project needs fencing off, and no mount point can be made in it; its secrets
   * files ({@link ProjectSecrets}) are empty, as a tool asks before reading one and these run unasked.
   */
  public Wrapped wrap(List<String> argv, Path project, boolean network, boolean readOnly) {
    return wrap(argv, project, network, readOnly, List.of());
  }

  /**
   * {@link #wrap(List, Path, boolean)} for what is tied to the Waymark that started it: the user's
   * own shell ({@code waymark shell}) and a bisect's candidate. Every process in it dies with that
   * Waymark, and with the first one when it returns ({@code --die-with-parent}: a command's
   * background jobs live on, followed and recorded later; these have none to keep). Each of
   * {@code shared} (the shell's private directory) is writable in it. No network unless the policy
   * allows it, as for commands.
   */
  public Wrapped wrapTied(List<String> argv, Path project, List<Path> shared) {
    List<String> last = new ArrayList<>(List.of("--die-with-parent"));
    shared.forEach(dir -> add(last, "--bind", dir, dir));
    return wrap(argv, project, false, false, last);
  }

  private Wrapped wrap(List<String> argv, Path project, boolean network, boolean readOnly, List<String> last) {
    if (!confines()) {
      throw new IllegalStateException("no sandbox to run in: " + unavailable);
    }
    List<String> args = new ArrayList<>(List.of(bwrap.get().toString(),
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"));
    List<String> opener = List.of();
    if (blocksUnixSockets()) {
      opener = new ArrayList<>(OPENER);
      opener.add(PrivateFiles.filterAgain(socketFilter.get()).toString());
      add(args, "--seccomp", FILTER_FD);
    }
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
    String projectBind = readOnly ? "--ro-bind" : "--bind";
    add(args, projectBind, project, project);
    // after the project, which would cover what is hidden inside it (a project that is the home directory)
    List<Path> hidden = new ArrayList<>();
    for (Path path : hiddenPaths()) {
      real(path).filter(r -> !r.equals(project)).ifPresent(r -> {
        if (Files.isDirectory(r)) {
          add(args, "--tmpfs", r);
          hidden.add(r);
          if (project.startsWith(r)) {
            add(args, projectBind, project, project); // a project inside a hidden directory is the project still
          }
        } else {
          add(args, "--ro-bind", PrivateFiles.empty(policy), r); // a key file: empty
        }
      });
    }
    if (readOnly) {
      for (Path secret : ProjectSecrets.in(project)) {
        if (Files.isDirectory(secret, LinkOption.NOFOLLOW_LINKS)) {
          add(args, "--tmpfs", secret, "--remount-ro", secret);
        } else {
          add(args, "--ro-bind", PrivateFiles.empty(policy), secret); // empty, as a hidden key file
        }
      }
    }
    List<Path> placeholders = new ArrayList<>();
    Path git = project.resolve(".git");
    if (readOnly) {
      // the project is read-only already; a .git that leads elsewhere (a link, a work tree's file) is made read-only too
      if (Files.isSymbolicLink(git)) {
        real(git).ifPresent(r -> add(args, "--ro-bind", r, r));
      } else if (Files.isRegularFile(git, LinkOption.NOFOLLOW_LINKS)) {
        gitDirs(git).forEach(dir -> add(args, "--ro-bind", dir, dir));
      }
    } else if (Files.isSymbolicLink(git)) {
      if (policy.gitWritable()) {
        GitDirFence.bindWritable(project, real(git).stream().toList(), PrivateFiles.empty(policy), args, placeholders);
      } else {
        real(git).ifPresent(r -> add(args, "--ro-bind", r, r));
      }
    } else if (Files.isDirectory(git, LinkOption.NOFOLLOW_LINKS)) {
      if (!policy.gitWritable()) {
        add(args, "--ro-bind", git, git);
      }
    } else if (Files.isRegularFile(git, LinkOption.NOFOLLOW_LINKS)) {
      // a work tree or submodule: .git names the real directory, which may lie inside a writable place
      add(args, "--ro-bind", git, git); // never rewritten to point elsewhere
      if (policy.gitWritable()) {
        GitDirFence.bindWritable(project, gitDirs(git), PrivateFiles.empty(policy), args, placeholders);
      } else {
        gitDirs(git).forEach(dir -> add(args, "--ro-bind", dir, dir));
      }
    }
    Path own = project.resolve(".waymark");
    if (readOnly) {
      // read-only with the project
    } else if (Files.exists(own, LinkOption.NOFOLLOW_LINKS)) {
      add(args, "--ro-bind", own, own);
    } else {
      // cannot be bound read-only before it exists; an empty read-only one keeps a command from making it
      add(args, "--tmpfs", own, "--remount-ro", own);
      placeholders.add(own);
    }
    for (Path dir : policy.readOnly()) {
      real(dir).ifPresent(r -> add(args, "--ro-bind", r, r));
    }
    for (Path socket : policy.unixSockets()) {
      // named by the user: reachable even under /run; read-only, and only a socket, so that it opens nothing else
      real(socket).filter(ShellSandbox::isSocket).ifPresent(r -> add(args, "--ro-bind", r, r));
    }
    for (Path dir : hidden) {
      add(args, "--remount-ro", dir);
    }
    if (offline) {
      args.add("--unshare-net");
    }
    // as root, bwrap would leave the command every capability, and umount would undo the sandbox
    args.addAll(last); // after every mount above, which would cover them
    args.addAll(List.of("--unshare-pid", "--new-session", "--cap-drop", "ALL", "--chdir", project.toString(), "--"));
    args.addAll(argv);
    List<String> all = new ArrayList<>(opener);
    all.addAll(args);
    return new Wrapped(List.copyOf(all), List.copyOf(placeholders));
  }

  /** What commands must not see: the policy's, and this process's own directory when the policy names none. */
  private List<Path> hiddenPaths() {
    List<Path> all = new ArrayList<>(policy.hidden());
    PrivateFiles.ownDir(policy).ifPresent(all::add);
    return all;
  }

  /**
   * {@code argv}, a command line of {@link #wrap}, with {@code enter} applied to its {@code bwrap}
   * part (a layer puts its namespace around bwrap): the opener of the filter stays in front.
   */
  public static List<String> entering(List<String> argv, UnaryOperator<List<String>> enter) {
    if (argv.size() <= OPENER.size() + 1 || !argv.subList(0, OPENER.size()).equals(OPENER)) {
      return enter.apply(argv);
    }
    List<String> all = new ArrayList<>(argv.subList(0, OPENER.size() + 1));
    all.addAll(enter.apply(argv.subList(OPENER.size() + 1, argv.size())));
    return List.copyOf(all);
  }

  /** A command line to start, and the empty mount points it makes (in the project, in a git directory). */
  public record Wrapped(List<String> argv, List<Path> placeholders) {
    /** Removes the mount points the sandbox made, if still empty: Waymark leaves nothing in the project. */
    public void removePlaceholders() {
      for (Path dir : placeholders) {
        try {
          if (!Files.isRegularFile(dir, LinkOption.NOFOLLOW_LINKS) || Files.size(dir) == 0) {
            Files.deleteIfExists(dir); // a directory: refused while anything is in it
          }
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
    } catch (IOException | InvalidPathException e) {
      // unreadable: the .git file itself stays read-only
    }
    return dirs;
  }

  private static boolean isSocket(Path path) {
    try {
      return ((Integer) Files.getAttribute(path, "unix:mode") & 0170000) == 0140000; // S_IFSOCK
    } catch (IOException | RuntimeException e) {
      return false;
    }
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

  /**
   * Null when {@code bwrap} starts an empty sandbox of the kind commands get, with the seccomp
   * program in {@code filter} if any; else its first line of complaint.
   */
  private static String tryOnce(Path bwrap, Optional<Path> filter) {
    List<String> argv = new ArrayList<>();
    filter.ifPresent(f -> {
      argv.addAll(OPENER);
      argv.add(f.toString());
    });
    argv.addAll(List.of(bwrap.toString(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        "--unshare-net", "--unshare-pid", "--new-session", "--cap-drop", "ALL"));
    filter.ifPresent(f -> argv.addAll(List.of("--seccomp", FILTER_FD)));
    argv.addAll(List.of("--", "/bin/sh", "-c", ":"));
    try {
      Process p = new ProcessBuilder(argv)
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
