package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The check half of a restore: each planned path against the disk, in parallel when there are
 * many, decided ({@link RestoreDecision}), merged where someone else's text edit can be carried
 * over, and the obstacles a write would meet (a directory, a link on the way). Stores merged and
 * rescued content in the shadow repository; changes nothing in the project.
 */
final class RestoreCheck {
  /**
   * What the check found: the writes to make (by path), the paths written and merged, the
   * conflicts (path → why, empty when a forced restore may overwrite), what was on disk at each,
   * and the stamps taken before each read, so that the write can tell a file changed since.
   */
  record Checked(Map<String, RestoreStep> steps, List<String> written, List<String> merged,
      Map<String, String> conflicts, Map<String, WorkTree.DiskFile> conflictDisk, Map<String, FileStamp> checked,
      long checkedAt) {}

  private final RestoreParts parts;
  private final Map<String, Planned> plan;
  private final int to;
  private final boolean force;
  /** The directories on the way to the restore's paths that are links, as it began. */
  private Set<String> linked = Set.of();

  RestoreCheck(RestoreParts parts, Map<String, Planned> plan, int to, boolean force) {
    this.parts = parts;
    this.plan = plan;
    this.to = to;
    this.force = force;
  }

  /** Checks every planned path against the disk; reads and stores, writes nothing in the project. */
  Checked check() throws IOException {
    ShadowRepository repo = parts.repo();
    WorkTree tree = parts.workTree();
    for (var entry : plan.entrySet()) {
      FileVersion target = entry.getValue().target();
      if (target.exists() && !repo.has(target.blob())) {
        throw new CheckpointException(CheckpointException.Kind.LOST, "Cannot restore #" + to + ": the stored content of " + entry.getKey()
            + " is gone from the shadow repository (pruned by retention, or the repository was damaged).");
      }
    }

    Map<String, RestoreStep> steps = new LinkedHashMap<>();
    List<String> written = new ArrayList<>();
    List<String> merged = new ArrayList<>();
    Map<String, String> conflicts = new TreeMap<>(); // path -> why, empty when force may overwrite
    Map<String, WorkTree.DiskFile> conflictDisk = new HashMap<>();
    Map<String, FileStamp> checked = new HashMap<>(); // taken before each read, so a later change shows
    long checkedAt = System.currentTimeMillis(); // the file system's clock, not the store's
    linked = tree.linkedDirectories(plan.keySet());
    // many paths are looked at on every core first: hashing what is on disk is what a large undo waits on
    Map<String, Looked> looked = plan.size() >= RestoreWrite.PARALLEL_WRITES ? lookAll(plan.keySet()) : Map.of();
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
          steps.put(path, new RestoreStep(path, disk.version(), decision.next()));
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
        steps.put(path, new RestoreStep(path, stored.get(2 * i), stored.get(2 * i + 1)));
      }
    }

    Set<String> removed = new HashSet<>();
    for (RestoreStep step : steps.values()) {
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
        steps.put(path, new RestoreStep(path, FileVersion.ABSENT, planned.target()));
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
    return new Checked(steps, written, merged, conflicts, conflictDisk, checked, checkedAt);
  }

  /** A path's stamp, and what is on disk there read after it. */
  private record Looked(FileStamp stamp, WorkTree.DiskFile disk) {}

  private Looked look(String path) throws IOException {
    if (WorkTree.below(path, linked)) {
      // nothing of the project's is there: a link's target is never read as the path (it may lie outside,
      // or be where the project's own directory moved); the link itself is the obstacle, or this restore removes it
      return new Looked(FileStamp.ABSENT, WorkTree.DiskFile.ABSENT);
    }
    FileStamp stamp = parts.workTree().stamp(path);
    return new Looked(stamp, parts.workTree().read(path, parts.repo()));
  }

  private Map<String, Looked> lookAll(Set<String> paths) throws IOException {
    Map<String, Looked> looked = new ConcurrentHashMap<>();
    try {
      paths.parallelStream().forEach(path -> {
        try {
          looked.put(path, look(path));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
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
  Map<String, FileVersion> rescue(Set<String> paths, Map<String, WorkTree.DiskFile> disk) throws IOException {
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
}
