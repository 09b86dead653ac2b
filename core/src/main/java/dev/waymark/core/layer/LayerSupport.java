package dev.waymark.core.layer;

import dev.waymark.core.sandbox.ShellSandbox;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Whether commands can run in a layer here, and the command line that enters one.
 *
 * <p>A layer is entered by {@code unshare -Urm}: a user namespace (the caller's id mapped to root
 * in it, no setuid helper) and a mount namespace, in which the overlay is mounted on the project's
 * own path with {@code userxattr} (the only way an unprivileged overlay can mark whiteouts and
 * opaque directories); then the sandbox ({@code bwrap}) starts inside, and maps the command back
 * to the caller's ids. The mount lives as long as a process of the namespace does, and is seen by
 * no one else. bwrap 0.9's {@code --overlay} would do the same; Debian 12 ships 0.8, so it is not
 * relied on.
 *
 * @param unshare the {@code unshare} found, empty when layers cannot be used
 * @param mount the {@code mount} found
 * @param unavailable why not, when {@code unshare} is empty
 */
public record LayerSupport(Optional<Path> unshare, Optional<Path> mount, String unavailable) {
  /** The exit status of a command whose layer could not be mounted: it did not run. */
  public static final int NOT_MOUNTED = 125;
  static final String NOT_MOUNTED_MESSAGE = "waymark: the copy-on-write layer of this command could not be mounted";

  public static final LayerSupport NONE = new LayerSupport(Optional.empty(), Optional.empty(), "not tried");

  public LayerSupport {
    unavailable = unavailable == null ? "" : unavailable;
  }

  public boolean available() {
    return unshare.isPresent() && mount.isPresent();
  }

  /**
   * Tries once, in a scratch directory under {@code layersRoot} (where layers will be made), to
   * mount an overlay in a namespace and run {@code bwrap} inside it; {@code pathVariable} is the
   * {@code PATH} to find the programs on.
   */
  public static LayerSupport detect(Path layersRoot, Path bwrap, String pathVariable) {
    Optional<Path> unshare = find("unshare", pathVariable);
    Optional<Path> mount = find("mount", pathVariable);
    if (unshare.isEmpty() || mount.isEmpty()) {
      return new LayerSupport(Optional.empty(), Optional.empty(), "unshare or mount was not found on PATH (util-linux)");
    }
    LayerSupport candidate = new LayerSupport(unshare, mount, "");
    Path scratch = null;
    try {
      LayerFiles.privateDirectories(layersRoot);
      scratch = Files.createTempDirectory(layersRoot, "probe-");
      Path lower = Files.createDirectory(scratch.resolve("lower"));
      Files.writeString(lower.resolve("file"), "lower\n");
      Path upper = Files.createDirectory(scratch.resolve("upper"));
      Path work = Files.createDirectory(scratch.resolve("work"));
      List<String> argv = candidate.enter(lower, upper, work, List.of(bwrap.toString(), "--ro-bind", "/", "/",
          "--bind", lower.toString(), lower.toString(), "--unshare-pid", "--chdir", lower.toString(), "--", "sh", "-c", "echo upper > file"));
      Process process = new ProcessBuilder(argv).redirectErrorStream(true).redirectInput(new File("/dev/null")).start();
      String output;
      try (var in = process.getInputStream()) {
        output = new String(in.readNBytes(4096), StandardCharsets.UTF_8).trim();
      }
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return none("the overlay probe did not end within 10 s");
      }
      if (process.exitValue() != 0 || !Files.readString(lower.resolve("file")).equals("lower\n")
          || !Files.readString(upper.resolve("file")).equals("upper\n")) {
        return none("an overlay cannot be mounted in a user namespace here (" + (output.isEmpty()
            ? "exit " + process.exitValue() : output.lines().reduce((a, b) -> b).orElse(output)) + ")");
      }
      return candidate;
    } catch (IOException e) {
      return none("the overlay probe failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return none("the overlay probe was interrupted");
    } finally {
      if (scratch != null) {
        deleteQuietly(scratch);
      }
    }
  }

  /** Where a successful probe is noted, with what it depends on, so that later processes need not probe again. */
  static final String PROBED = "overlay-works";

  /**
   * {@link #detect}, unless an earlier process found layers work here with the same programs,
   * kernel and user (noted in {@code layersRoot}): a fresh process then starts its first command
   * without a probe. {@link #forget} drops the note when a layer could not be mounted after all.
   */
  public static LayerSupport detectOnce(Path layersRoot, Path bwrap, String pathVariable) {
    Optional<Path> unshare = find("unshare", pathVariable);
    Optional<Path> mount = find("mount", pathVariable);
    String key = String.join("\n", System.getProperty("os.version", ""), bwrap.toString(),
        unshare.map(Path::toString).orElse(""), mount.map(Path::toString).orElse(""), Long.toString(callerId("uid")));
    Path note = layersRoot.resolve(PROBED);
    try {
      if (unshare.isPresent() && mount.isPresent() && Files.readString(note).equals(key)) {
        return new LayerSupport(unshare, mount, "");
      }
    } catch (IOException noNote) {
      // probed below
    }
    LayerSupport found = detect(layersRoot, bwrap, pathVariable);
    if (found.available()) {
      try {
        Path temp = Files.createTempFile(layersRoot, PROBED, ".tmp");
        Files.writeString(temp, key);
        Files.move(temp, note, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        // the next process probes again
      }
    }
    return found;
  }

  /** Drops the note of {@link #detectOnce}: the next process probes again. */
  public static void forget(Path layersRoot) {
    try {
      Files.deleteIfExists(layersRoot.resolve(PROBED));
    } catch (IOException e) {
      // probed again only if it is gone
    }
  }

  /** Whether {@code output} is that of a command whose layer could not be mounted (it did not run). */
  public static boolean notMounted(int exitCode, String output) {
    return exitCode == NOT_MOUNTED && output.contains(NOT_MOUNTED_MESSAGE);
  }

  private static LayerSupport none(String why) {
    return new LayerSupport(Optional.empty(), Optional.empty(), why);
  }

  /** Why {@code project} cannot have a layer, if it cannot: a path overlayfs's options cannot hold. */
  public static Optional<String> unsuitable(Path project) {
    String path = project.toString();
    for (char c : new char[] {',', ':', '\\', '"', '\n'}) {
      if (path.indexOf(c) >= 0) {
        return Optional.of("the project's path holds '" + (c == '\n' ? "\\n" : String.valueOf(c))
            + "', which an overlay mount cannot name");
      }
    }
    return Optional.empty();
  }

  /**
   * {@code sandboxArgv} (a {@code bwrap} command line) run inside {@code layer}: the project is the
   * overlay, its writes go to the layer's upper directory. If the overlay cannot be mounted, the
   * command does not run and ends with {@link #NOT_MOUNTED}.
   */
  public List<String> enter(Layer layer, List<String> sandboxArgv) {
    return enter(layer.project(), layer.upper(), layer.work(), sandboxArgv, callerId("uid"), callerId("gid"));
  }

  /** {@link #enter(Layer, List)} for a throw-away layer, which is never journalled nor applied. */
  public List<String> enter(ScratchLayer layer, List<String> sandboxArgv) {
    return enter(layer.project(), layer.upper(), layer.work(), sandboxArgv);
  }

  /**
   * {@code sandboxArgv} run in an isolated tab's {@code view}: the overlay mounted with the view's
   * own upper directory, so the command sees the view at the project's path and its writes stay in it.
   */
  public List<String> enter(View view, List<String> sandboxArgv) {
    return enter(view.project(), view.upper(), view.work(), sandboxArgv);
  }

  /**
   * {@code sandboxArgv} run on an isolated tab's {@code view} that it may not change (plan mode):
   * the view's upper directory and the project both mounted as lower layers, with no upper one,
   * which makes the overlay read-only; its whiteouts and opaque directories count as they do above.
   */
  public List<String> enterReadOnly(View view, List<String> sandboxArgv) {
    unsuitable(view.upper()).ifPresent(why -> {
      throw new IllegalArgumentException(why);
    });
    String options = "lowerdir=" + view.upper() + ":" + view.project() + ",userxattr";
    return ShellSandbox.entering(sandboxArgv, bwrapArgv -> enterBwrap(view.project(), options, bwrapArgv, callerId("uid"),
        callerId("gid")));
  }

  /** {@link #enter(Layer, List)} for a command started as user {@code uid} and group {@code gid} (a test runs one as another user). */
  List<String> enter(Layer layer, List<String> sandboxArgv, long uid, long gid) {
    return enter(layer.project(), layer.upper(), layer.work(), sandboxArgv, uid, gid);
  }

  private List<String> enter(Path lower, Path upper, Path work, List<String> sandboxArgv) {
    return enter(lower, upper, work, sandboxArgv, callerId("uid"), callerId("gid"));
  }

  private List<String> enter(Path lower, Path upper, Path work, List<String> sandboxArgv, long uid, long gid) {
    // the opener of the sandbox's seccomp program stays outside: the namespace goes around bwrap itself
    String options = "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work + ",userxattr";
    return ShellSandbox.entering(sandboxArgv, bwrapArgv -> enterBwrap(lower, options, bwrapArgv, uid, gid));
  }

  private List<String> enterBwrap(Path lower, String options, List<String> sandboxArgv, long uid, long gid) {
    if (!available()) {
      throw new IllegalStateException("no layers here: " + unavailable);
    }
    unsuitable(lower).ifPresent(why -> {
      throw new IllegalArgumentException(why);
    });
    List<String> argv = new ArrayList<>(List.of(unshare.get().toString(), "--user", "--map-root-user", "--mount",
        "--", "/bin/sh", "-c",
        // $1: the options, $2: the project; the rest is the sandbox's command line
        "\"$0\" -t overlay overlay -o \"$1\" \"$2\" || { echo '" + NOT_MOUNTED_MESSAGE + "' >&2; exit " + NOT_MOUNTED
            + "; }; shift 2; exec \"$@\"",
        mount.get().toString(), options, lower.toString()));
    argv.add(sandboxArgv.get(0));
    // the command is root only in the namespace that mounts; the sandbox gives it the caller's ids back
    argv.addAll(List.of("--unshare-user", "--uid", Long.toString(uid), "--gid", Long.toString(gid)));
    argv.addAll(sandboxArgv.subList(1, sandboxArgv.size()));
    return List.copyOf(argv);
  }

  private static long callerId(String which) {
    try {
      // /proc/self is a link (owned by root): its target, /proc/PID, is owned by this process's ids
      return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:" + which)).longValue();
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static Optional<Path> find(String name, String pathVariable) {
    List<String> dirs = new ArrayList<>();
    if (pathVariable != null) {
      dirs.addAll(List.of(pathVariable.split(File.pathSeparator)));
    }
    dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
    return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, name)).filter(Files::isExecutable).findFirst();
  }

  private static void deleteQuietly(Path dir) {
    try {
      Layer.deleteTree(dir);
    } catch (IOException | RuntimeException e) {
      // a probe's leftovers are harmless
    }
  }
}
