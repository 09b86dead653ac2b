package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away layer of the project that another tree is seen through: its upper directory is
 * filled before anything runs (files written, deletions as whiteouts), a command runs on the
 * overlay, and the layer is deleted, never applied. Bisect tests a checkpoint's tree this way
 * without touching the project: the upper holds only the paths where that tree differs from the
 * project now, so preparing one costs what differs, never the project's size.
 *
 * <p>Unlike a {@link Layer} it has no journal: nothing is lost if a kill leaves one behind, and
 * {@link #sweep} deletes what an earlier process left.
 */
public final class ScratchLayer implements AutoCloseable {
  /** How many whiteouts one {@code mknod} shell makes (an argument list stays far below the kernel's limit). */
  private static final int WHITEOUTS_PER_PROCESS = 2_000;

  private final Path dir;
  private final Path project;
  private final List<Path> whiteouts = new ArrayList<>();
  /** The directories made in the upper, to be given the lower's modes once the layer is filled. */
  private final List<Path> made = new ArrayList<>();
  private int written;

  private ScratchLayer(Path dir, Path project) {
    this.dir = dir;
    this.project = project;
  }

  /** A new, empty layer of {@code project} (a real path) under {@code root}, private to the user. */
  public static ScratchLayer create(Path root, Path project) throws IOException {
    LayerFiles.privateDirectories(root);
    Path dir = Files.createTempDirectory(root, "scratch-");
    Files.createDirectory(dir.resolve("upper"));
    Files.createDirectory(dir.resolve("work"));
    return new ScratchLayer(dir, project);
  }

  /** Deletes the layers a process that was killed left under {@code root} (none of them is ever applied). */
  public static void sweep(Path root) {
    if (!Files.isDirectory(root)) {
      return;
    }
    try (var entries = Files.list(root)) {
      for (Path entry : entries.filter(p -> p.getFileName().toString().startsWith("scratch-")).toList()) {
        try {
          Layer.deleteTree(entry);
        } catch (IOException stillUsed) {
          // another process's, still in use
        }
      }
    } catch (IOException unreadable) {
      // nothing to sweep
    }
  }

  public Path project() {
    return project;
  }

  Path upper() {
    return dir.resolve("upper");
  }

  Path work() {
    return dir.resolve("work");
  }

  /** The layer's own directory, beside the upper (a command's output may be kept there). */
  public Path directory() {
    return dir;
  }

  /** Puts {@code content} at {@code path} (relative to the project) with the permission bits {@code mode}. */
  public void write(String path, byte[] content, int mode) throws IOException {
    Path target = entry(path);
    Files.write(target, content);
    Files.setAttribute(target, "unix:mode", mode & 07777, LinkOption.NOFOLLOW_LINKS);
    written++;
  }

  /** Puts a symbolic link to {@code target} at {@code path}. */
  public void link(String path, String target) throws IOException {
    Files.createSymbolicLink(entry(path), Path.of(target));
    written++;
  }

  /** Hides {@code path}, if the project has a file or link there, by a whiteout (made by {@link #seal}). */
  public void delete(String path) throws IOException {
    Path lower = project.resolve(path);
    if (Files.exists(lower, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(lower, LinkOption.NOFOLLOW_LINKS)) {
      whiteouts.add(entry(path));
    }
  }

  /**
   * Makes the whiteouts and gives the directories made their modes. A whiteout is a character
   * device {@code 0:0}, which overlayfs reads as "deleted" and an unprivileged user may make (Linux
   * 5.8 on; layers need 5.11). Java cannot make a device, so a shell runs {@code mknod} for each, a
   * few thousand to a process.
   */
  public void seal() throws IOException {
    for (int from = 0; from < whiteouts.size(); from += WHITEOUTS_PER_PROCESS) {
      List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", "for p; do mknod \"$p\" c 0 0 || exit 1; done", "sh"));
      whiteouts.subList(from, Math.min(whiteouts.size(), from + WHITEOUTS_PER_PROCESS)).forEach(p -> argv.add(p.toString()));
      Process process = new ProcessBuilder(argv).redirectErrorStream(true)
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
      try {
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
          process.destroyForcibly();
          throw new IOException("could not make the layer's whiteouts: " + output.strip());
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while making the layer's whiteouts", e);
      }
    }
    // last: a read-only directory of the project is read-only here too once nothing more goes in
    for (int i = made.size() - 1; i >= 0; i--) {
      Path lower = project.resolve(upper().relativize(made.get(i)));
      if (Files.isDirectory(lower, LinkOption.NOFOLLOW_LINKS)) {
        Files.setAttribute(made.get(i), "unix:mode", (Integer) Files.getAttribute(lower, "unix:mode") & 07777);
      }
    }
  }

  /** How many files and links the upper holds. */
  public int written() {
    return written;
  }

  /** How many paths the layer hides. */
  public int deleted() {
    return whiteouts.size();
  }

  /**
   * Where {@code path} goes in the upper directory, its parents made there: as directories of the
   * lower's mode where the lower has one (the upper's directory gives the merged one its mode).
   */
  private Path entry(String path) throws IOException {
    if (path.isEmpty() || path.startsWith("/") || List.of(path.split("/")).contains("..")) {
      throw new IOException("not a path inside the project: " + path);
    }
    Path target = upper().resolve(path);
    Path parent = target.getParent();
    if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
      Path relative = upper().relativize(parent);
      Path made = upper();
      for (Path name : relative) {
        made = made.resolve(name);
        if (!Files.isDirectory(made, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectory(made);
          this.made.add(made);
        }
      }
    }
    return target;
  }

  /** Deletes the layer: what ran in it is gone, and the project never saw it. */
  @Override
  public void close() throws IOException {
    Layer.deleteTree(dir);
  }
}
