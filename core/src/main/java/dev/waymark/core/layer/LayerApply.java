package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

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
 *
 * <p>No link is followed in any component of a path the apply reads, writes, deletes or renames:
 * each is reached from the project's root one directory at a time, held open ({@link Beneath}). A
 * change below a directory someone made a link while the command ran is refused, a clash that
 * names the link (the command's version kept, as for any clash). Applies to one project take
 * turns across processes (the caller's lock; see {@code LayerRecording}).
 */
public final class LayerApply {
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

  /** A deletion to make, decided before anything is done: a directory's goes once its entries' did. */
  private record Deletion(String path, boolean directory) {}

  /** A file or link to put at {@code path}; {@code replaces}: a file or link is there now (a directory is deleted first). */
  private record Write(String path, Path after, boolean replaces, String stamp) {}

  private static final String DELETED = "deleted";

  /**
   * What earlier applies of a layer that processes still write in made, so that the next one makes
   * only what changed since: by path, the upper entry as it was applied (or clashed).
   */
  public static final class SoFar {
    private final Map<String, String> stamps = new ConcurrentHashMap<>();

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
  public static Result apply(Layer layer, List<LayerChange> changes, ApplyBases bases, Merge merge, Recorder recorder)
      throws IOException {
    return apply(layer, changes, bases, merge, recorder, new SoFar(), false);
  }

  /**
   * Applies what changed in {@code layer} since {@code soFar}; with {@code keepUpper}, by copying,
   * leaving the upper directory as it is: processes still write in it, through its mount. Every
   * path in the project is reached from its root without a link ({@link Beneath}): a change below
   * a directory that is a link now is refused, a clash that names the link.
   */
  public static Result apply(Layer layer, List<LayerChange> changes, ApplyBases bases, Merge merge, Recorder recorder,
      SoFar soFar, boolean keepUpper) throws IOException {
    try (Beneath dirs = new Beneath(layer.project())) {
      return apply(layer, dirs, changes, bases, merge, recorder, soFar, keepUpper);
    }
  }

  private static Result apply(Layer layer, Beneath dirs, List<LayerChange> changes, ApplyBases bases, Merge merge,
      Recorder recorder, SoFar soFar, boolean keepUpper) throws IOException {
    List<String> merged = new ArrayList<>();
    List<Clash> clashes = new ArrayList<>();
    List<Deletion> deletions = new ArrayList<>();
    List<LayerChange> sorted = changes.stream().filter(c -> c.kind() == LayerChange.Kind.DELETED)
        .sorted(Comparator.comparing(LayerChange::path, LayerApply::deepestFirst)).toList();
    ChangedMeanwhile meanwhile = new ChangedMeanwhile(layer, dirs);
    Set<String> kept = new HashSet<>();
    for (LayerChange change : sorted) {
      if (soFar.unchanged(change.path(), DELETED)) {
        continue;
      }
      Optional<Path> target = dirs.entry(change.path());
      if (target.isEmpty()) {
        // below a file someone made, there is nothing to delete; below a link, it is refused
        if (dirs.linkAbove(change.path()).isPresent()) {
          refusedBelowLink(dirs, change.path(), null, Set.of(), clashes);
          soFar.done(change.path(), DELETED);
        }
        continue;
      }
      BasicFileAttributes now = attributesOrNull(target.get());
      if (now == null) {
        continue;
      }
      Optional<String> putThere = meanwhile.belowDeleted(change, now.isDirectory());
      if (putThere.isPresent()) {
        if (kept.add(putThere.get())) {
          clashes.add(new Clash(putThere.get() + "/", null, "moved into the project or changed there while the command "
              + "ran, which deleted " + change.deletedWith() + ": kept, with what it holds"));
        }
        soFar.done(change.path(), DELETED);
        continue;
      }
      if (now.isDirectory()) {
        deletions.add(new Deletion(change.path(), true)); // its entries first; one added meanwhile keeps it
      } else if (layer.changedSince(change.path(), target.get())) {
        clashes.add(new Clash(change.path(), null, "changed in the project while the command ran, which deleted it"));
        soFar.done(change.path(), DELETED);
      } else {
        deletions.add(new Deletion(change.path(), false));
      }
    }
    Set<String> deleted = new HashSet<>();
    deletions.forEach(d -> deleted.add(d.path()));
    List<LayerChange> directories = new ArrayList<>();
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.DIRECTORY) {
        continue;
      }
      Optional<Path> target = dirs.entry(change.path());
      if (target.isEmpty() && refusedBelowLink(dirs, change.path() + "/", null, deleted, clashes).isPresent()) {
        continue;
      }
      BasicFileAttributes now = target.isEmpty() ? null : attributesOrNull(target.get());
      if (now != null && !now.isDirectory() && !deleted.contains(change.path())) {
        clashes.add(new Clash(change.path() + "/", null, "a file or link was made there while the command ran"));
      } else {
        directories.add(change);
      }
    }
    List<Write> files = new ArrayList<>();
    LayerFiles.UpperListings upperNow = new LayerFiles.UpperListings();
    LayerFiles.Listings projectNow = new LayerFiles.Listings(dirs);
    boolean stamped = keepUpper || !soFar.isEmpty(); // only a layer applied more than once needs to know what changed
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.FILE && change.kind() != LayerChange.Kind.SYMLINK) {
        continue;
      }
      Path after = change.source();
      if (!upperNow.holds(after)) {
        continue; // moved already, by an apply a kill interrupted
      }
      String stamp = stamped ? LayerFiles.stamp(after) : "";
      if (stamped && soFar.unchanged(change.path(), stamp)) {
        continue;
      }
      Optional<Path> target = dirs.entry(change.path());
      if (target.isEmpty() && refusedBelowLink(dirs, change.path(), after, deleted, clashes).isPresent()) {
        soFar.done(change.path(), stamp);
        continue;
      }
      BasicFileAttributes now = target.isPresent() && projectNow.holds(change.path()) ? attributesOrNull(target.get()) : null;
      boolean deletedFirst = deleted.contains(change.path());
      // a file the command rewrote by rename (sed -i) is a new entry to overlayfs, not a copy-up: that it was
      // there when the command started is what says someone deleted it meanwhile
      if (now == null && meanwhile.parentOf(change.path()) && bases.existed(change.path())) {
        if (change.kind() == LayerChange.Kind.FILE && sameAsBase(bases, change.path(), after)) {
          // written back as it was: nothing of it to keep, and the deletion made meanwhile stands
          if (!keepUpper) {
            Files.delete(after);
          }
          soFar.done(change.path(), stamp);
          continue;
        }
        clashes.add(new Clash(change.path(), after, "deleted in the project while the command ran, which changed it"));
        soFar.done(change.path(), stamp);
        continue;
      }
      if (now != null && now.isDirectory() && !deletedFirst) {
        clashes.add(new Clash(change.path(), after, "a directory was made there while the command ran"));
        soFar.done(change.path(), stamp);
        continue;
      }
      if (now != null && !now.isDirectory() && layer.changedSince(change.path(), target.get())) {
        if (LayerFiles.sameVersion(target.get(), after)) {
          if (!keepUpper) {
            Files.delete(after); // the project already holds what the command made
          }
          soFar.done(change.path(), stamp);
          continue;
        }
        Optional<Path> mergedFile = merged(layer, change, target.get(), bases, merge);
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
      files.add(new Write(change.path(), after, now != null && !now.isDirectory(), stamp));
    }
    tell(dirs, recorder, clashes, deletions, files);
    if (!keepUpper) { // from here a kill is finished from the plan: the upper directory no longer tells what was made
      Map<String, Path> mergedFiles = new HashMap<>();
      files.stream().filter(f -> !f.after().equals(layer.upper().resolve(f.path())))
          .forEach(f -> mergedFiles.put(f.path(), f.after()));
      ApplyPlan.write(layer, changes, mergedFiles, clashes);
    }

    List<String> applied = new ArrayList<>();
    for (Deletion step : deletions) {
      Optional<Path> target = dirs.entry(step.path());
      if (target.isEmpty()) {
        if (dirs.linkAbove(step.path()).isPresent()) {
          refusedBelowLink(dirs, step.path(), null, Set.of(), clashes);
        }
        continue;
      }
      try {
        Files.deleteIfExists(target.get());
        if (step.directory()) {
          dirs.forget(step.path()); // a directory made there again is not the one held
        }
        soFar.done(step.path(), DELETED);
        applied.add(step.directory() ? step.path() + "/" : step.path());
        afterStep.run();
      } catch (DirectoryNotEmptyException keptForWhatWasAddedMeanwhile) {
        // its other entries were clashes, or made meanwhile: it stays for them
      }
    }
    for (LayerChange change : directories) {
      Optional<Path> target = dirs.entry(change.path());
      if (target.isEmpty()) {
        if (refusedBelowLink(dirs, change.path() + "/", null, Set.of(), clashes).isEmpty()) {
          clashes.add(new Clash(change.path() + "/", null, "its directory was removed or replaced while the command ran"));
        }
        continue;
      }
      if (!Files.isDirectory(target.get(), LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createDirectory(target.get());
        } catch (FileAlreadyExistsException madeMeanwhile) {
          clashes.add(new Clash(change.path() + "/", null, "a file or link was made there while the command ran"));
          continue;
        }
      }
      if (change.mode() >= 0) {
        LayerFiles.setDirectoryMode(target.get(), change.mode());
      }
    }
    for (Write step : files) {
      Optional<Path> target = dirs.entry(step.path());
      if (target.isEmpty()) {
        if (refusedBelowLink(dirs, step.path(), step.after(), Set.of(), clashes).isEmpty()) {
          clashes.add(new Clash(step.path(), step.after(), "its directory was removed or replaced while the command ran"));
        }
        continue;
      }
      Path source = layer.upper().resolve(step.path());
      boolean mergedFile = !step.after().equals(source);
      try {
        if (keepUpper && !mergedFile) {
          LayerFiles.copyInto(step.after(), target.get());
        } else {
          LayerFiles.moveInto(step.after(), target.get());
        }
      } catch (IOException e) {
        // made meanwhile (the plan saw none): a rename over a directory or into a removed one fails, and is a clash
        if (Files.isDirectory(target.get(), LinkOption.NOFOLLOW_LINKS)) {
          clashes.add(new Clash(step.path(), step.after(), "the directory there holds files changed while the command ran"));
          continue;
        }
        if (!Files.isDirectory(target.get().getParent())) {
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

  /**
   * Tells {@code recorder} of every change before any is made: the clashes first (the project's
   * version as it is), then the deletions and the files. Each path in the project is named as it
   * is reached now, without a link; one below a link is told as absent (nothing is read through it).
   */
  private static void tell(Beneath dirs, Recorder recorder, List<Clash> clashes, List<Deletion> deletions,
      List<Write> files) throws IOException {
    for (Clash clash : clashes) {
      if (!clash.path().endsWith("/")) {
        Path current = dirs.entry(clash.path()).orElse(null);
        BasicFileAttributes now = attributesOrNull(current);
        if (now == null || !now.isDirectory()) {
          recorder.clashed(clash.path(), now == null ? null : current, clash.commandVersion());
        }
      }
    }
    for (Deletion step : deletions) {
      if (!step.directory()) {
        recorder.beforeChange(step.path(), dirs.entry(step.path()).orElse(null), null);
      }
    }
    for (Write step : files) {
      recorder.beforeChange(step.path(), step.replaces() ? dirs.entry(step.path()).orElse(null) : null, step.after());
    }
    recorder.allTold();
  }

  /**
   * When a directory above {@code path} is a link now (made by someone else while the command ran:
   * the command's own writes never reach the project), the change is refused: a clash naming the
   * link, the command's version ({@code commandVersion}, null for a deletion or a directory) kept.
   * So is one below a file someone made where the command's directory goes. A link or file the
   * command itself replaced by a directory ({@code deleting}: this apply deletes it first) refuses
   * nothing.
   */
  private static Optional<Clash> refusedBelowLink(Beneath dirs, String path, Path commandVersion, Set<String> deleting,
      List<Clash> clashes) throws IOException {
    Optional<Beneath.Blocker> blocker = dirs.blockerAbove(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
    if (blocker.isEmpty() || deleting.contains(blocker.get().path())) {
      return Optional.empty();
    }
    Clash clash = new Clash(path, commandVersion, blocker.get().link()
        ? blocker.get().path() + " is a link now, made while the command ran: nothing is written, deleted or read through it"
        : blocker.get().path() + " is a file now, made while the command ran where the command's directory goes");
    clashes.add(clash);
    return Optional.of(clash);
  }

  /** {@code a} before {@code b} when {@code a} lies below {@code b}; otherwise in reverse order. */
  private static int deepestFirst(String a, String b) {
    return b.compareTo(a);
  }

  /** The three-way merge of the command's change into the project's file, written beside the layer's; empty on a clash. */
  /** Whether the layer's {@code after} holds what {@code path} held when it started (its base, where known). */
  private static boolean sameAsBase(ApplyBases bases, String path, Path after) throws IOException {
    Optional<byte[]> base = bases.base(path);
    return base.isPresent() && Files.size(after) == base.get().length
        && Arrays.equals(base.get(), Files.readAllBytes(after));
  }

  private static Optional<Path> merged(Layer layer, LayerChange change, Path target, ApplyBases bases, Merge merge)
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

  private static BasicFileAttributes attributesOrNull(Path path) throws IOException {
    return LayerFiles.attributesOrNull(path);
  }
}
