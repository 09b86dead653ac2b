package dev.waymark.core.layer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One command's layer on disk: {@code upper/} (its writes), {@code work/} (overlayfs's own), and
 * {@code layer.json}, its journal: whose it is, the project, the process that runs it, and the
 * moment it started. The directory stays until the layer is applied whole, so a layer found with
 * its process gone was interrupted (during the command or its apply) and is finished by
 * {@link LayerJournal#leftBehind}'s caller.
 *
 * <p>{@link #started()} is the change time of {@code layer.json} as the file system set it: a
 * project file whose change time is later was changed by someone else while the command ran (the
 * command's own writes went to the upper directory), on the same clock the file system keeps.
 */
public final class Layer {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String JOURNAL = "layer.json";
  static final String BASES = "bases";

  private final Path dir;
  private final Path project;
  private final String owner;
  private final String mark;
  private final long pid;
  private final long processStart;
  private final FileTime started;

  private Layer(Path dir, Path project, String owner, String mark, long pid, long processStart, FileTime started) {
    this.dir = dir;
    this.project = project;
    this.owner = owner;
    this.mark = mark;
    this.pid = pid;
    this.processStart = processStart;
    this.started = started;
  }

  /** Makes a new layer of {@code project} under {@code layersRoot}, journalled before anything runs in it. */
  static Layer create(Path layersRoot, Path project, String owner, String mark) throws IOException {
    return create(layersRoot, project, owner, mark, -1);
  }

  /**
   * As above; {@code since} (milliseconds, {@code -1}: now) is when what the layer holds began to be
   * made: an isolated tab's view, landed as a layer, began when the view was opened.
   */
  static Layer create(Path layersRoot, Path project, String owner, String mark, long since) throws IOException {
    LayerFiles.privateDirectories(layersRoot);
    Path dir = Files.createTempDirectory(layersRoot, "layer-");
    Files.createDirectory(dir.resolve("upper"));
    Files.createDirectory(dir.resolve("work"));
    ObjectNode journal = JSON.createObjectNode()
        .put("project", project.toString())
        .put("owner", owner)
        .put("mark", mark)
        .put("pid", ProcessHandle.current().pid())
        .put("processStart", processStart(ProcessHandle.current()));
    if (since >= 0) {
      journal.put("since", since);
    }
    Path temp = dir.resolve(JOURNAL + ".tmp");
    Files.write(temp, JSON.writeValueAsBytes(journal));
    Files.move(temp, dir.resolve(JOURNAL), StandardCopyOption.ATOMIC_MOVE);
    return read(dir);
  }

  /** The layer in {@code dir}, from its journal. */
  static Layer read(Path dir) throws IOException {
    Path journal = dir.resolve(JOURNAL);
    var node = JSON.readTree(Files.readString(journal, StandardCharsets.UTF_8));
    FileTime changed = node.has("since") ? FileTime.fromMillis(node.path("since").asLong())
        : (FileTime) Files.getAttribute(journal, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
    return new Layer(dir, Path.of(node.path("project").asText()), node.path("owner").asText(),
        node.path("mark").asText(), node.path("pid").asLong(), node.path("processStart").asLong(), changed);
  }

  private static long processStart(ProcessHandle process) {
    return process.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
  }

  /**
   * The same layer started again now: after an apply while processes still write in it, what the
   * apply made in the project is not taken for someone else's change by the next one.
   */
  public Layer restarted() throws IOException {
    Path journal = dir.resolve(JOURNAL);
    Path temp = dir.resolve(JOURNAL + ".tmp");
    Files.copy(journal, temp, StandardCopyOption.REPLACE_EXISTING);
    Files.move(temp, journal, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return read(dir);
  }

  /** Whether the process that made this layer still runs (and so may still run its command or apply it). */
  public boolean ownerAlive() {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .map(p -> processStart == 0 || processStart(p) == processStart).orElse(false);
  }

  /** Whether this process made the layer. */
  public boolean mine() {
    return pid == ProcessHandle.current().pid() && processStart == processStart(ProcessHandle.current());
  }

  /**
   * Whether {@code file} (not followed if a link) changed after the layer started; a missing file
   * did not, nor one below a file (where a directory was, or will be).
   */
  public boolean changedSince(Path file) throws IOException {
    try {
      FileTime changed = (FileTime) Files.getAttribute(file, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
      return changed.compareTo(started) > 0;
    } catch (NoSuchFileException missing) {
      return false;
    } catch (FileSystemException e) {
      if (e.getReason() != null && e.getReason().contains("Not a directory")) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Whether the project's {@code file}, at {@code path}, changed after the layer started: for a
   * landed view ({@link #bases()}), whether it differs from what it held when the view first changed it.
   */
  public boolean changedSince(String path, Path file) throws IOException {
    Optional<ViewBases> bases = bases();
    return bases.isPresent() ? bases.get().changedSinceBase(path, file) : changedSince(file);
  }

  /** What the project held where a landed view changed it, when this layer is one ({@link View#land}). */
  public Optional<ViewBases> bases() {
    Path bases = dir.resolve(BASES);
    return Files.isDirectory(bases) ? Optional.of(new ViewBases(bases)) : Optional.empty();
  }

  public Path directory() {
    return dir;
  }

  public Path upper() {
    return dir.resolve("upper");
  }

  public Path work() {
    return dir.resolve("work");
  }

  public Path project() {
    return project;
  }

  /** Whose the layer is, as its maker said (opaque here: a tab and checkpoint, for the caller). */
  public String owner() {
    return owner;
  }

  /** The mark in the environment of the command's processes, by which they are found and stopped. */
  public String mark() {
    return mark;
  }

  public FileTime started() {
    return started;
  }

  /**
   * Removes the layer: once applied, or once what is left in it was applied. The journal goes
   * first: a layer without one is only leftovers, which {@link LayerJournal} removes.
   */
  public void delete() throws IOException {
    Files.deleteIfExists(dir.resolve(JOURNAL));
    deleteTree(dir);
  }

  /**
   * Deletes {@code path} and everything below it. Overlayfs leaves {@code work/work} with no
   * permissions (owned by the caller, but unreadable to a user without privileges): a directory is
   * made the owner's to list and empty before it is listed.
   */
  static void deleteTree(Path path) throws IOException {
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      // chmod by name: one with no link followed opens the directory first, which its mode refuses
      Files.setAttribute(path, "unix:mode", 0700);
      try (Stream<Path> entries = Files.list(path)) {
        for (Path entry : entries.toList()) {
          deleteTree(entry);
        }
      }
    }
    Files.deleteIfExists(path);
  }

  @Override
  public String toString() {
    return "layer " + dir.getFileName() + " of " + owner;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Layer && ((Layer) o).dir.equals(dir);
  }

  @Override
  public int hashCode() {
    return Objects.hash(dir);
  }
}
