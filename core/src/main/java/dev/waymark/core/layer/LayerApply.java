package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Applies a layer's changes to its project. Deletions first (deepest first), then directories
 * (parents first), then files and links, each moved from the upper directory by a rename where the
 * two share a file system, else copied beside its target and renamed over it: a reader of the
 * project sees a file whole, old or new. Modes and link targets are kept.
 *
 * <p>A path someone else changed while the command ran ({@link Layer#changedSince}) is never simply
 * overwritten: if the command's version is the same, nothing is done; if both are text and the
 * version the command started from is known, the two changes are merged three-way; otherwise the
 * project's file is kept and the path is a {@link Clash}, whose command version stays in the
 * upper directory for the caller to keep (until it deletes the layer). A file the command changed
 * that someone deleted meanwhile stays deleted, a clash too. The recorder is told of each clash
 * before the apply, as the command's change that was not made.
 *
 * <p>Every change is handed to the {@link Recorder} before the project is touched, so that a kill
 * at any moment loses nothing; then its {@link ApplyPlan} is journalled, from which a kill during the
 * changes is finished (the upper directory, part emptied, no longer tells what was made).
 */
public final class LayerApply {
  private static final String TEMP_SUFFIX = ".waymark-layer.tmp";

  private LayerApply() {}

  /** Runs after each change is made to the project (a test stops an apply there, as a kill would). */
  static volatile Runnable afterStep = () -> {};

  /** Told of every file change before any is made (so one commit can hold them all), then that they are about to be. */
  public interface Recorder {
    /**
     * {@code path} in the project ({@code current}, as it is now; null when there is nothing there)
     * is about to become {@code after} (a file or link to move there; null for a deletion).
     * Throwing stops the apply with nothing changed.
     */
    void beforeChange(String path, Path current, Path after) throws IOException;

    /**
     * {@code path} in the project ({@code current}; null when there is nothing there) is kept as it
     * is, though the command made it {@code commandVersion} (null: it deleted it): someone changed
     * it meanwhile. The command's version is still the command's change, to be kept with the others.
     * Throwing stops the apply with nothing changed.
     */
    default void clashed(String path, Path current, Path commandVersion) throws IOException {}

    /** Every change was told: keep them (a kill from here on loses nothing). Throwing stops the apply with nothing changed. */
    default void allTold() throws IOException {}
  }

  /** What the project held when the command started, as far as the caller knows, for the paths someone changed meanwhile. */
  public interface Bases {
    Bases UNKNOWN = path -> Optional.empty();

    /** Its bytes, or empty when not known (the change then clashes unless both sides agree). */
    Optional<byte[]> base(String path);

    /**
     * Whether {@code path}, absent now, is known to have been a file when the command started: then
     * a command's change of it was made to a file someone deleted meanwhile. Overlayfs cannot tell:
     * a file copied up from another name ({@code mv a b}) or rewritten by rename ({@code sed -i})
     * looks the same as one changed in place or made new.
     */
    default boolean existed(String path) {
      return false;
    }
  }

  /** A three-way text merge: {@code base → theirs} brought into {@code ours}; empty on a conflict or binary side. */
  public interface Merge {
    Optional<byte[]> merge(byte[] base, byte[] ours, byte[] theirs);
  }

  /** A change left out: the project's version kept, the command's in {@code commandVersion} (null: it deleted the path). */
  public record Clash(String path, Path commandVersion, String reason) {}

  /** What an apply did: the paths changed, the paths merged (a subset), and the clashes. */
  public record Result(List<String> applied, List<String> merged, List<Clash> clashes) {
    public Result {
      applied = List.copyOf(applied);
      merged = List.copyOf(merged);
      clashes = List.copyOf(clashes);
    }
  }

  /** One thing to do to the project, decided before anything is done. */
  private record Step(String path, Path target, Path after, boolean deleteDirectory, String stamp) {}

  /**
   * What earlier applies of a layer that processes still write in made, so that the next one makes
   * only what changed since: by path, the upper entry as it was applied (or clashed).
   */
  public static final class SoFar {
    private final java.util.Map<String, String> stamps = new java.util.concurrent.ConcurrentHashMap<>();

    boolean unchanged(String path, String stamp) {
      return stamp.equals(stamps.get(path));
    }

    void done(String path, String stamp) {
      if (!stamp.isEmpty()) {
        stamps.put(path, stamp);
      }
    }

    boolean isEmpty() {
      return stamps.isEmpty();
    }
  }

  /** Applies {@code changes} (read from {@code layer}'s upper directory) to its project, moving them out of it. */
  public static Result apply(Layer layer, List<LayerChange> changes, Bases bases, Merge merge, Recorder recorder)
      throws IOException {
    return apply(layer, changes, bases, merge, recorder, new SoFar(), false);
  }

  /**
   * Applies what changed in {@code layer} since {@code soFar}; with {@code keepUpper}, by copying,
   * leaving the upper directory as it is: processes still write in it, through its mount.
   */
  public static Result apply(Layer layer, List<LayerChange> changes, Bases bases, Merge merge, Recorder recorder,
      SoFar soFar, boolean keepUpper) throws IOException {
    Path project = layer.project();
    List<String> merged = new ArrayList<>();
    List<Clash> clashes = new ArrayList<>();
    List<Step> deletions = new ArrayList<>();
    List<LayerChange> sorted = changes.stream().filter(c -> c.kind() == LayerChange.Kind.DELETED)
        .sorted(Comparator.comparing(LayerChange::path, LayerApply::deepestFirst)).toList();
    for (LayerChange change : sorted) {
      Path target = project.resolve(change.path());
      BasicFileAttributes now = attributesOrNull(target);
      if (now == null || soFar.unchanged(change.path(), "deleted")) {
        continue;
      }
      if (now.isDirectory()) {
        deletions.add(new Step(change.path(), target, null, true, "deleted")); // its entries first; one added meanwhile keeps it
      } else if (layer.changedSince(target)) {
        clashes.add(new Clash(change.path(), null, "changed in the project while the command ran, which deleted it"));
        soFar.done(change.path(), "deleted");
      } else {
        deletions.add(new Step(change.path(), target, null, false, "deleted"));
      }
    }
    List<LayerChange> directories = new ArrayList<>();
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.DIRECTORY) {
        continue;
      }
      BasicFileAttributes now = attributesOrNull(project.resolve(change.path()));
      boolean deletedFirst = deletions.stream().anyMatch(d -> d.path().equals(change.path()));
      if (now != null && !now.isDirectory() && !deletedFirst) {
        clashes.add(new Clash(change.path() + "/", null, "a file was made there while the command ran"));
      } else {
        directories.add(change);
      }
    }
    List<Step> files = new ArrayList<>();
    java.util.Set<String> deleted = new java.util.HashSet<>();
    deletions.forEach(d -> deleted.add(d.path()));
    Listings upperNow = new Listings();
    Listings projectNow = new Listings();
    boolean stamped = keepUpper || !soFar.isEmpty(); // only a layer applied more than once needs to know what changed
    // a directory looked at once, whatever number of the command's new files it holds
    java.util.Map<Path, Boolean> parentsChanged = new java.util.HashMap<>();
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.FILE && change.kind() != LayerChange.Kind.SYMLINK) {
        continue;
      }
      Path target = project.resolve(change.path());
      Path after = change.source();
      if (!upperNow.holds(after)) {
        continue; // moved already, by an apply a kill interrupted
      }
      String stamp = stamped ? stamp(after) : "";
      if (stamped && soFar.unchanged(change.path(), stamp)) {
        continue;
      }
      BasicFileAttributes now = projectNow.holds(target) ? attributesOrNull(target) : null;
      boolean deletedFirst = deleted.contains(change.path());
      // a file the command rewrote by rename (sed -i) is a new entry to overlayfs, not a copy-up: that it was
      // there when the command started is what says someone deleted it meanwhile
      if (now == null && parentChanged(layer, target.getParent(), parentsChanged) && bases.existed(change.path())) {
        clashes.add(new Clash(change.path(), after, "deleted in the project while the command ran, which changed it"));
        soFar.done(change.path(), stamp);
        continue;
      }
      if (now != null && now.isDirectory() && !deletedFirst) {
        clashes.add(new Clash(change.path(), after, "a directory was made there while the command ran"));
        soFar.done(change.path(), stamp);
        continue;
      }
      if (now != null && !now.isDirectory() && layer.changedSince(target)) {
        if (sameVersion(target, after)) {
          if (!keepUpper) {
            Files.delete(after); // the project already holds what the command made
          }
          soFar.done(change.path(), stamp);
          continue;
        }
        Optional<Path> mergedFile = merged(layer, change, target, bases, merge);
        if (mergedFile.isEmpty()) {
          clashes.add(new Clash(change.path(), after, "changed in the project while the command ran, and the two "
              + "changes could not be merged"));
          soFar.done(change.path(), stamp);
          continue;
        }
        after = mergedFile.get();
        merged.add(change.path());
      }
      // a directory the command replaced is gone by the time this is made (its deletion goes first): nothing was there
      boolean replacesDirectory = now != null && now.isDirectory();
      files.add(new Step(change.path(), now == null || replacesDirectory ? null : target, after, false, stamp));
    }
    for (Clash clash : clashes) {
      if (!clash.path().endsWith("/")) {
        Path current = project.resolve(clash.path());
        BasicFileAttributes now = attributesOrNull(current);
        if (now == null || !now.isDirectory()) {
          recorder.clashed(clash.path(), now == null ? null : current, clash.commandVersion());
        }
      }
    }
    for (Step step : deletions) {
      if (!step.deleteDirectory()) {
        recorder.beforeChange(step.path(), step.target(), null);
      }
    }
    for (Step step : files) {
      recorder.beforeChange(step.path(), step.target(), step.after());
    }
    List<Step> absentBefore = files;
    files = new ArrayList<>();
    for (Step step : absentBefore) {
      files.add(step.target() != null ? step : new Step(step.path(), project.resolve(step.path()), step.after(),
          false, step.stamp()));
    }
    recorder.allTold();
    if (!keepUpper) { // from here a kill is finished from the plan: the upper directory no longer tells what was made
      java.util.Map<String, Path> mergedFiles = new java.util.HashMap<>();
      files.stream().filter(f -> !f.after().equals(layer.upper().resolve(f.path())))
          .forEach(f -> mergedFiles.put(f.path(), f.after()));
      ApplyPlan.write(layer, changes, mergedFiles, clashes);
    }

    List<String> applied = new ArrayList<>();
    for (Step step : deletions) {
      try {
        Files.deleteIfExists(step.target());
        soFar.done(step.path(), step.stamp());
        applied.add(step.deleteDirectory() ? step.path() + "/" : step.path());
        afterStep.run();
      } catch (DirectoryNotEmptyException keptForWhatWasAddedMeanwhile) {
        // its other entries were clashes, or made meanwhile: it stays for them
      }
    }
    for (LayerChange change : directories) {
      Path target = project.resolve(change.path());
      if (!Files.isDirectory(target.getParent(), LinkOption.NOFOLLOW_LINKS)) {
        clashes.add(new Clash(change.path() + "/", null, "its directory was removed or replaced while the command ran"));
        continue;
      }
      if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createDirectory(target);
        } catch (java.nio.file.FileAlreadyExistsException madeMeanwhile) {
          clashes.add(new Clash(change.path() + "/", null, "a file was made there while the command ran"));
          continue;
        }
      }
      if (change.mode() >= 0) {
        Files.setAttribute(target, "unix:mode", change.mode());
      }
    }
    java.util.Set<Path> directoriesThere = new java.util.HashSet<>(); // looked at once each, not once per file
    for (Step step : files) {
      Path parent = step.target().getParent();
      if (!directoriesThere.contains(parent)) {
        if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
          clashes.add(new Clash(step.path(), step.after(), "its directory was removed or replaced while the command ran"));
          continue;
        }
        directoriesThere.add(parent);
      }
      Path source = layer.upper().resolve(step.path());
      boolean mergedFile = !step.after().equals(source);
      try {
        if (keepUpper && !mergedFile) {
          copyInto(step.after(), step.target());
        } else {
          moveInto(step.after(), step.target());
        }
      } catch (IOException e) {
        // made meanwhile (the plan saw none): a rename over a directory or into a removed one fails, and is a clash
        if (Files.isDirectory(step.target(), LinkOption.NOFOLLOW_LINKS)) {
          clashes.add(new Clash(step.path(), step.after(), "the directory there holds files changed while the command ran"));
          continue;
        }
        if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
          directoriesThere.remove(parent);
          clashes.add(new Clash(step.path(), step.after(), "its directory was removed or replaced while the command ran"));
          continue;
        }
        throw e;
      }
      if (mergedFile && !keepUpper) {
        Files.deleteIfExists(source); // the command's own version is applied within the merge
      }
      soFar.done(step.path(), step.stamp());
      applied.add(step.path());
      afterStep.run();
    }
    return new Result(applied, merged, clashes);
  }

  /** {@code a} before {@code b} when {@code a} lies below {@code b}; otherwise in reverse order. */
  private static int deepestFirst(String a, String b) {
    return b.compareTo(a);
  }

  /** The three-way merge of the command's change into the project's file, written beside the layer's; empty on a clash. */
  private static Optional<Path> merged(Layer layer, LayerChange change, Path target, Bases bases, Merge merge)
      throws IOException {
    if (change.kind() != LayerChange.Kind.FILE || !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    Optional<byte[]> base = bases.base(change.path());
    if (base.isEmpty()) {
      return Optional.empty();
    }
    Optional<byte[]> result = merge.merge(base.get(), Files.readAllBytes(target), Files.readAllBytes(change.source()));
    if (result.isEmpty()) {
      return Optional.empty();
    }
    Path file = layer.directory().resolve("merged-" + UUID.randomUUID());
    Files.write(file, result.get());
    Files.setAttribute(file, "unix:mode", change.mode());
    return Optional.of(file);
  }

  /** {@link Layer#changedSince} of {@code dir}, looked at once per apply ({@code known}). */
  private static boolean parentChanged(Layer layer, Path dir, java.util.Map<Path, Boolean> known) throws IOException {
    Boolean changed = known.get(dir);
    if (changed == null) {
      changed = layer.changedSince(dir);
      known.put(dir, changed);
    }
    return changed;
  }

  /** Whether two paths hold the same kind, bytes (or link target) and mode. */
  static boolean sameVersion(Path a, Path b) throws IOException {
    BasicFileAttributes x = Files.readAttributes(a, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    BasicFileAttributes y = Files.readAttributes(b, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (x.isSymbolicLink() || y.isSymbolicLink()) {
      return x.isSymbolicLink() && y.isSymbolicLink() && Files.readSymbolicLink(a).equals(Files.readSymbolicLink(b));
    }
    return x.isRegularFile() && y.isRegularFile() && x.size() == y.size()
        && UpperReader.mode(a) == UpperReader.mode(b)
        && Arrays.equals(Files.readAllBytes(a), Files.readAllBytes(b));
  }

  /**
   * The names in each directory, listed once: whether a path exists is then known without a stat
   * that fails (an exception each) for each of thousands of new files.
   */
  private static final class Listings {
    private final java.util.Map<Path, java.util.Set<String>> byDirectory = new java.util.HashMap<>();

    boolean holds(Path path) throws IOException {
      java.util.Set<String> names = byDirectory.get(path.getParent());
      if (names == null) {
        names = new java.util.HashSet<>();
        if (Files.isDirectory(path.getParent(), LinkOption.NOFOLLOW_LINKS)) {
          try (var entries = Files.list(path.getParent())) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
              names.add(entry.getFileName().toString());
            }
          } catch (NoSuchFileException gone) {
            // empty
          }
        }
        byDirectory.put(path.getParent(), names);
      }
      return names.contains(path.getFileName().toString());
    }
  }

  /** What an upper entry is now: a later write through the mount changes it. */
  private static String stamp(Path upperEntry) throws IOException {
    var attributes = Files.readAttributes(upperEntry, "unix:ctime,size,mode,ino", LinkOption.NOFOLLOW_LINKS);
    return attributes.get("ctime") + ":" + attributes.get("size") + ":" + attributes.get("mode") + ":" + attributes.get("ino");
  }

  /** Puts a copy of {@code source} at {@code target} whole (mode and link kept), leaving the source. */
  static void copyInto(Path source, Path target) throws IOException {
    Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + TEMP_SUFFIX);
    try {
      Files.copy(source, temp, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Puts {@code source} at {@code target} whole: a rename where they share a file system, else a
   * copy beside the target (mode and link kept) renamed over it.
   */
  static void moveInto(Path source, Path target) throws IOException {
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
      return;
    } catch (AtomicMoveNotSupportedException otherFileSystem) {
      // copied below
    } catch (IOException e) {
      if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
        throw e;
      }
      if (!String.valueOf(e.getMessage()).contains("cross-device")) {
        throw e;
      }
    }
    copyInto(source, target);
    Files.delete(source);
  }

  private static BasicFileAttributes attributesOrNull(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException missing) {
      return null;
    } catch (java.nio.file.FileSystemException notADirectory) {
      if (notADirectory.getReason() != null && notADirectory.getReason().contains("Not a directory")) {
        return null;
      }
      throw notADirectory;
    }
  }
}
