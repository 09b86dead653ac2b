package dev.waymark.core.layer;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
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
    // the process's id in the name: a sweep leaves the layers of processes still running
    Path dir = Files.createTempDirectory(root, "scratch-" + ProcessHandle.current().pid() + "-");
    Files.createDirectory(dir.resolve("upper"));
    Files.createDirectory(dir.resolve("work"));
    return new ScratchLayer(dir, project);
  }

  /**
   * Deletes the layers processes that ended (killed, say) left under {@code root}; none of them is
   * ever applied. Those of a process still running are its own, in use.
   */
  public static void sweep(Path root) {
    if (!Files.isDirectory(root)) {
      return;
    }
    try (var entries = Files.list(root)) {
      for (Path entry : entries.filter(p -> p.getFileName().toString().startsWith("scratch-") && !ownerRuns(p)).toList()) {
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

  private static boolean ownerRuns(Path layer) {
    String[] parts = layer.getFileName().toString().split("-");
    try {
      return parts.length > 2 && ProcessHandle.of(Long.parseLong(parts[1])).map(ProcessHandle::isAlive).orElse(false);
    } catch (NumberFormatException notOurs) {
      return false;
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
   * device {@code 0:0}, which overlayfs reads as "deleted"; each is a hard link to one made once
   * under the root ({@link #template}), as overlayfs itself shares one: no process per layer.
   */
  public void seal() throws IOException {
    Path template = null;
    for (Path whiteout : whiteouts) {
      if (template == null) {
        template = template(dir.getParent());
      }
      try {
        Files.createLink(whiteout, template);
      } catch (FileSystemException tooManyLinks) {
        template = template(dir.getParent(), true);
        Files.createLink(whiteout, template);
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

  private static final String TEMPLATE = "whiteout";

  private static Path template(Path root) throws IOException {
    return template(root, false);
  }

  /**
   * The whiteout under {@code root} that layers link to, made with {@code mknod} (Java cannot make a
   * device; an unprivileged user may make this one from Linux 5.8 on, and layers need 5.11) the
   * first time, or again when {@code renew} (it has as many links as the file system allows).
   */
  private static Path template(Path root, boolean renew) throws IOException {
    Path template = root.resolve(TEMPLATE);
    if (!renew && Files.exists(template, LinkOption.NOFOLLOW_LINKS)) {
      if (!UpperReader.whiteout(template, Files.readAttributes(template,
          BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS))) {
        throw new IOException(template + " is not a whiteout (a character device 0:0)");
      }
      return template;
    }
    Path made = root.resolve(TEMPLATE + "." + ProcessHandle.current().pid() + "." + System.nanoTime());
    Process process = new ProcessBuilder("mknod", made.toString(), "c", "0", "0").redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IOException("could not make a whiteout with mknod: " + output.strip());
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making a whiteout", e);
    }
    Files.move(made, template, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return template;
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
