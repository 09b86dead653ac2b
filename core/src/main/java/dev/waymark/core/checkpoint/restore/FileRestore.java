package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.RestoreJournal;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the project's files from one checkpoint of a tab to another, path by path: plan, check
 * every path against the disk, then (unless something clashes) journal and write.
 */
public final class FileRestore {
  private static final Logger LOG = LoggerFactory.getLogger(FileRestore.class);

  /** What a restore did; {@code changes} is every write it made, what it replaced and what it wrote. */
  public record Outcome(boolean applied, List<String> written, List<String> merged, List<String> conflicts,
      Optional<String> rescueTag, List<FileChange> changes) {
    public static final Outcome NOTHING = new Outcome(true, List.of(), List.of(), List.of(), Optional.empty(), List.of());

    Outcome(boolean applied, List<String> written, List<String> merged, List<String> conflicts, Optional<String> rescueTag) {
      this(applied, written, merged, conflicts, rescueTag, List.of());
    }

    /** Those of {@code written} the restore removed, since the target has no such file. */
    public List<String> deleted() {
      return changes.stream().filter(c -> !c.after().exists() && written.contains(c.path())).map(FileChange::path).toList();
    }
  }

  /** One write the restore will make, with what it replaces. */
  private record Step(String path, FileVersion prior, FileVersion next) {}

  private final RestoreParts parts;
  private final String tabId;
  private final Map<String, Planned> plan;
  /** The checkpoint named in messages and the journal: the restore's target, or the one a revert takes back. */
  private final int to;
  private final boolean force;
  /** The directories on the way to the restore's paths that are links, as it began. */
  private Set<String> linked = Set.of();

  /** A restore of {@code plan}'s paths for the tab {@code parts} serves; checkpoint {@code subject} names it in messages. */
  public FileRestore(RestoreParts parts, Map<String, Planned> plan, int subject, boolean force) {
    this.parts = parts;
    this.tabId = parts.tabId();
    this.plan = plan;
    this.to = subject;
    this.force = force;
  }

  public Outcome run(int liveNumber) {
    if (plan.isEmpty()) {
      return Outcome.NOTHING;
    }
    return parts.lock().run(() -> execute(plan, liveNumber));
  }

  private Outcome execute(Map<String, Planned> plan, int liveNumber) throws IOException {
    ShadowRepository repo = parts.repo();
    WorkTree tree = parts.workTree();
    for (var entry : plan.entrySet()) {
      FileVersion target = entry.getValue().target();
      if (target.exists() && !repo.has(target.blob())) {
        throw new CheckpointException("Cannot restore #" + to + ": the stored content of " + entry.getKey()
            + " is gone from the shadow repository (pruned by retention, or the repository was damaged).");
      }
    }

    Map<String, Step> steps = new LinkedHashMap<>();
    List<String> written = new ArrayList<>();
    List<String> merged = new ArrayList<>();
    Map<String, String> conflicts = new TreeMap<>(); // path -> why, empty when force may overwrite
    Map<String, WorkTree.DiskFile> conflictDisk = new HashMap<>();
    Map<String, WorkTree.Stamp> checked = new HashMap<>(); // taken before each read, so a later change shows
    long checkedAt = System.currentTimeMillis(); // the file system's clock, not the store's
    linked = tree.linkedDirectories(plan.keySet());
    // many paths are looked at on every core first: hashing what is on disk is what a large undo waits on
    Map<String, Looked> looked = plan.size() >= PARALLEL_WRITES ? lookAll(plan.keySet()) : Map.of();
    List<FileState> toStore = new ArrayList<>();
    List<String> toStoreFor = new ArrayList<>();
    List<String> blocked = new ArrayList<>();

    for (var entry : plan.entrySet()) {
      String path = entry.getKey();
      FileVersion base = entry.getValue().base();
      FileVersion target = entry.getValue().target();
      Looked look = looked.containsKey(path) ? looked.get(path) : look(path);
      checked.put(path, look.stamp());
      WorkTree.DiskFile disk = look.disk();
      RestoreDecision decision = RestoreDecision.decide(entry.getValue(), disk);
      switch (decision.action()) {
        case KEEP -> { }
        case WRITE -> {
          steps.put(path, new Step(path, disk.version(), decision.next()));
          written.add(path);
        }
        case BLOCKED -> blocked.add(path); // decided below, once the removals are known
        case MERGE, CONFLICT -> {
          FileState ours = decision.action() == RestoreDecision.Action.MERGE ? tree.readState(path) : null;
          Optional<FileState> mergedState = ours == null ? Optional.empty() : merge(ours, base, target);
          if (mergedState.isPresent()) {
            toStore.add(ours);
            toStore.add(mergedState.get());
            toStoreFor.add(path);
            merged.add(path);
          } else {
            conflicts.put(path, "");
            conflictDisk.put(path, disk);
          }
        }
        default -> throw new IllegalStateException(decision.action().name());
      }
    }
    if (!toStore.isEmpty()) {
      List<FileVersion> stored = repo.insert(toStore);
      for (int i = 0; i < toStoreFor.size(); i++) {
        String path = toStoreFor.get(i);
        steps.put(path, new Step(path, stored.get(2 * i), stored.get(2 * i + 1)));
      }
    }

    Set<String> removed = new HashSet<>();
    for (Step step : steps.values()) {
      if (!step.next().exists()) {
        removed.add(step.path());
      }
    }
    if (force) {
      for (String path : conflicts.keySet()) {
        if (!plan.get(path).target().exists()) {
          removed.add(path);
        }
      }
    }
    // A directory where the tab expects no file is no obstacle when this restore removes all it
    // holds (the tab's own files: x/y going away so that the file x comes back).
    for (String path : blocked) {
      Planned planned = plan.get(path);
      if (!planned.target().exists() && Files.isDirectory(tree.resolve(path), LinkOption.NOFOLLOW_LINKS)) {
        // no file there, as the target wants: checkpoints record files, not directories, and this one holds files of
        // someone's (the target's own, when a restore that made it was cut short before the tab noted where it stood)
        continue;
      }
      if (!planned.base().exists() && tree.emptiedBy(path, removed)) {
        steps.put(path, new Step(path, FileVersion.ABSENT, planned.target()));
        written.add(path);
      } else {
        conflicts.put(path, path + " is a directory or special file on disk");
      }
    }
    for (var entry : plan.entrySet()) {
      String path = entry.getKey();
      boolean changing = steps.containsKey(path) || conflicts.containsKey(path);
      if (changing) { // a removal too: it must not delete through a link either
        String obstacle = tree.obstacle(path, removed);
        if (!obstacle.isEmpty()) {
          conflicts.put(path, obstacle);
          steps.remove(path);
          written.remove(path);
          merged.remove(path);
        }
      }
    }

    if (!conflicts.isEmpty() && !force) {
      return new Outcome(false, List.of(), List.of(), new ArrayList<>(conflicts.keySet()), Optional.empty());
    }
    List<String> unforceable = new ArrayList<>();
    for (var entry : conflicts.entrySet()) {
      if (!entry.getValue().isEmpty()) {
        unforceable.add(entry.getValue());
      }
    }
    if (!unforceable.isEmpty()) {
      throw new CheckpointException("Cannot restore #" + to + ", even by force: " + String.join("; ", unforceable) + ".");
    }

    Optional<String> rescueTag = Optional.empty();
    if (!conflicts.isEmpty()) {
      Map<String, FileVersion> rescued = rescue(conflicts.keySet(), conflictDisk);
      rescueTag = Optional.of(parts.rescue().commit(rescued, liveNumber, to));
      for (var entry : rescued.entrySet()) {
        steps.put(entry.getKey(), new Step(entry.getKey(), entry.getValue(), plan.get(entry.getKey()).target()));
      }
    }

    Optional<String> changedMeanwhile = apply(new ArrayList<>(steps.values()), checked, checkedAt, liveNumber);
    if (changedMeanwhile.isPresent()) {
      return new Outcome(false, List.of(), List.of(), List.of(changedMeanwhile.get()), rescueTag);
    }
    written.sort(null);
    merged.sort(null);
    List<FileChange> changes = new ArrayList<>();
    for (Step step : steps.values()) {
      changes.add(new FileChange(step.path(), step.prior(), step.next()));
    }
    return new Outcome(true, written, merged, new ArrayList<>(conflicts.keySet()), rescueTag, changes);
  }

  /** A path's stamp, and what is on disk there read after it. */
  private record Looked(WorkTree.Stamp stamp, WorkTree.DiskFile disk) {}

  private Looked look(String path) throws IOException {
    if (WorkTree.below(path, linked)) {
      // nothing of the project's is there: a link's target is never read as the path (it may lie outside,
      // or be where the project's own directory moved); the link itself is the obstacle, or this restore removes it
      return new Looked(WorkTree.Stamp.ABSENT, WorkTree.DiskFile.ABSENT);
    }
    WorkTree.Stamp stamp = parts.workTree().stamp(path);
    return new Looked(stamp, parts.workTree().read(path, parts.repo()));
  }

  private Map<String, Looked> lookAll(Set<String> paths) throws IOException {
    Map<String, Looked> looked = new java.util.concurrent.ConcurrentHashMap<>();
    try {
      paths.parallelStream().forEach(path -> {
        try {
          looked.put(path, look(path));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    return looked;
  }

  private Optional<FileState> merge(FileState ours, FileVersion base, FileVersion target) throws IOException {
    ShadowRepository repo = parts.repo();
    if (repo.size(base.blob()) > ShadowRepository.MERGEABLE_LIMIT || repo.size(target.blob()) > ShadowRepository.MERGEABLE_LIMIT) {
      return Optional.empty();
    }
    Optional<byte[]> content = TextMerge.merge(repo.read(base.blob()), ours.contentUnsafe(), repo.read(target.blob()));
    // The mode follows the target unless someone else changed it on disk.
    boolean oursChangedMode = ours.kind() != base.kind()
        || base.hasMode() && ours.mode() != FileVersion.NO_MODE && ours.mode() != base.mode();
    FileKind kind = oursChangedMode ? ours.kind() : target.kind();
    int mode = oursChangedMode ? ours.mode() : target.mode();
    return content.map(bytes -> FileState.of(kind, bytes).withMode(mode));
  }

  /** Stores what is on disk at each conflicting path, so that a forced restore loses nothing. */
  private Map<String, FileVersion> rescue(Set<String> paths, Map<String, WorkTree.DiskFile> disk) throws IOException {
    Map<String, FileVersion> rescued = new TreeMap<>();
    for (String path : paths) {
      WorkTree.DiskFile file = disk.get(path);
      if (file.kind() == FileKind.ABSENT) {
        rescued.put(path, FileVersion.ABSENT);
      } else if (file.kind() == FileKind.SYMLINK) {
        rescued.put(path, parts.repo().insert(List.of(parts.workTree().readState(path))).get(0));
      } else {
        rescued.put(path, new FileVersion(file.kind(), parts.repo().insertFile(parts.workTree().resolve(path), file.size()),
            file.mode()));
      }
    }
    return rescued;
  }

  /**
   * Writes every step, or none: a file that changed after it was checked (someone saved or
   * deleted it while the restore ran) stops the restore, which puts back what it had written and
   * names that file; a failed write does the same and throws.
   */
  private Optional<String> apply(List<Step> steps, Map<String, WorkTree.Stamp> checked, long checkedAt, int liveNumber) throws IOException {
    // Removals first, deepest first, so that a directory can take a removed file's place.
    steps.sort(Comparator.comparing((Step s) -> s.next().exists())
        .thenComparing(s -> s.next().exists() ? depth(s.path()) : -depth(s.path()))
        .thenComparing(Step::path));
    List<RestoreJournal.Entry> entries = new ArrayList<>();
    for (Step step : steps) {
      entries.add(RestoreJournal.Entry.of(step.path(), step.prior(), step.next()));
    }
    try {
      RestoreJournal.write(parts.journalFile(), new RestoreJournal.Content(1, tabId, liveNumber, to, entries));
    } catch (IOException e) {
      throw new CheckpointException("Cannot restore #" + to + ": the restore journal could not be written in "
          + parts.journalFile().getParent() + " (" + reason(e) + "); no file was changed.", e);
    }
    long generation = parts.workTree().beginWrites();
    int firstWrite = 0;
    while (firstWrite < steps.size() && !steps.get(firstWrite).next().exists()) {
      firstWrite++;
    }
    // Many files to remove, or to write: on every core (a large restore waits on the file system);
    // a few: one by one, in order, which is also what the tests' write hook relies on.
    List<Step> applied = new ArrayList<>(steps.size());
    Step current = null;
    try {
      for (List<Step> batch : List.of(steps.subList(0, firstWrite), steps.subList(firstWrite, steps.size()))) {
        if (batch.size() < PARALLEL_WRITES) {
          for (Step step : batch) {
            current = step;
            if (!applyOne(step, checked, checkedAt)) {
              return stopped(applied, step);
            }
            applied.add(step);
          }
          continue;
        }
        List<Step> written = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Step> changed = new AtomicReference<>();
        AtomicReference<Step> failedStep = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        batch.parallelStream().forEach(step -> {
          if (changed.get() != null || failure.get() != null) {
            return;
          }
          try {
            if (applyOne(step, checked, checkedAt)) {
              written.add(step);
            } else {
              changed.compareAndSet(null, step);
            }
          } catch (IOException | RuntimeException e) {
            if (failure.compareAndSet(null, e)) {
              failedStep.set(step);
            }
          }
        });
        applied.addAll(written);
        if (failure.get() != null) {
          current = failedStep.get();
          throw failure.get();
        }
        if (changed.get() != null) {
          return stopped(applied, changed.get());
        }
      }
    } catch (Exception e) {
      String failedAt = current == null ? "?" : current.path();
      if (current != null && !applied.contains(current)) {
        applied.add(current);
      }
      rollBack(applied);
      Files.deleteIfExists(parts.journalFile());
      throw new CheckpointException("Restore of #" + to + " failed at " + failedAt + ": "
          + (current == null ? String.valueOf(e.getMessage()) : why(e, current.path()))
          + "; every file was put back as it was.", e);
    }
    Files.deleteIfExists(parts.journalFile());
    parts.workTree().writesDone(generation);
    List<FileChange> wrote = new ArrayList<>(steps.size());
    for (Step step : steps) {
      wrote.add(new FileChange(step.path(), step.prior(), step.next()));
    }
    parts.written().accept(wrote);
    return Optional.empty();
  }

  /** Why writing {@code path} failed, in words, naming the project's directory rather than a temporary file. */
  static String why(Exception e, String path) {
    if (!(e instanceof java.nio.file.FileSystemException)) {
      return String.valueOf(e.getMessage());
    }
    int slash = path.lastIndexOf('/');
    String dir = slash < 0 ? "the project directory" : path.substring(0, slash + 1);
    String lower = reason(e);
    if (lower.contains("permission denied") || lower.contains("operation not permitted")) {
      return "permission denied in " + dir + (lower.equals("permission denied") ? "" : " (" + lower + ")")
          + "; make the file and its directory writable and try again";
    }
    if (lower.contains("name too long")) {
      return "its name is too long for the file system (" + lower + ")";
    }
    if (lower.contains("no space left")) {
      return "the disk is full (" + lower + ")";
    }
    if (lower.contains("read-only file system")) {
      return "the project is on a read-only file system";
    }
    return lower;
  }

  /** What the system said, without the path of the file it was about ("operation not permitted"). */
  static String reason(Exception e) {
    if (!(e instanceof java.nio.file.FileSystemException failure)) {
      return String.valueOf(e.getMessage());
    }
    String reason = failure instanceof java.nio.file.AccessDeniedException ? "permission denied"
        : failure instanceof java.nio.file.NoSuchFileException ? "no such file or directory"
        : failure.getReason() == null ? failure.getClass().getSimpleName() : failure.getReason();
    return reason.toLowerCase(java.util.Locale.ROOT);
  }

  /** At least this many files to write: they are written in parallel. */
  public static final int PARALLEL_WRITES = 256;

  /** Writes or deletes one path; false, with nothing done, when it changed since it was checked. */
  private boolean applyOne(Step step, Map<String, WorkTree.Stamp> checked, long checkedAt) throws IOException {
    parts.beforeWrite().accept(step.path());
    if (changedSinceChecked(step, checked.get(step.path()), checkedAt)) {
      return false;
    }
    if (step.next().exists()) {
      if (step.prior().exists() && !parts.workTree().keepReplaced(step.path(), step.prior(), checked.get(step.path()),
          checkedAt, parts.repo())) {
        return false;
      }
      parts.workTree().write(step.path(), step.next(), parts.repo());
      return true;
    }
    return parts.workTree().remove(step.path(), step.prior(), checked.get(step.path()), checkedAt, parts.repo());
  }

  /** A file changed under the restore: what it wrote is put back, and the file is named. */
  private Optional<String> stopped(List<Step> applied, Step changed) throws IOException {
    rollBack(applied);
    Files.deleteIfExists(parts.journalFile());
    LOG.warn("restore of #{} stopped: {} changed on disk while it ran", to, changed.path());
    return Optional.of(changed.path());
  }

  private boolean changedSinceChecked(Step step, WorkTree.Stamp then, long checkedAt) throws IOException {
    if (then == null || then.directory()) {
      return false; // a directory's stamp changes as this restore empties it; only an empty one is replaced
    }
    WorkTree tree = parts.workTree();
    if (!then.equals(tree.stamp(step.path()))) {
      return true;
    }
    if (!then.racy(checkedAt)) {
      return false;
    }
    WorkTree.DiskFile disk = tree.read(step.path(), parts.repo());
    // a FIFO, socket or device (blocked, not a directory) has no content that could change unseen: its stamp says all
    return !disk.blocked() && !disk.matches(step.prior());
  }

  private void rollBack(List<Step> applied) {
    WorkTree tree = parts.workTree();
    for (int i = applied.size() - 1; i >= 0; i--) {
      Step step = applied.get(i);
      try {
        tree.putBack(step.path(), step.prior(), step.next(), parts.repo());
      } catch (IOException | RuntimeException e) {
        LOG.error("could not put back {} while rolling back a failed restore", step.path(), e);
      }
    }
  }

  private static int depth(String path) {
    int depth = 0;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/') {
        depth++;
      }
    }
    return depth;
  }
}
