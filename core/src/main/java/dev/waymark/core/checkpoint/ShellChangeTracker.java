package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One project's stat cache: for each file the walker sees, its stat data and the blob holding its
 * content, so that the content a shell command overwrote is known without reading the whole tree
 * before every command. See {@link WorkTreeSnapshot} for the rules and the cost.
 *
 * <p>The cache lives in memory, one per {@link ShadowStore}, shared by its tabs. Its blobs stay
 * unreachable until a checkpoint records them; {@link #forget()} drops the cache after a gc.
 */
final class ShellChangeTracker {
  private static final Logger LOG = LoggerFactory.getLogger(ShellChangeTracker.class);
  /** A file modified this close to a scan may change again without its stat changing. */
  static final long RACY_MILLIS = 2_000;
  private static final long BATCH_BYTES = 16L << 20;

  private final Path root;
  private final ShadowRepository repo;
  private final ProjectWalker walker;
  private final Map<String, Cached> cache = new HashMap<>();

  ShellChangeTracker(Path root, ShadowRepository repo, List<String> exclusions) {
    this.root = root;
    this.repo = repo;
    this.walker = new ProjectWalker(root, exclusions);
  }

  /** Stat data of one entry; two equal stats mean "unchanged" (unless racy). */
  record Stat(FileKind kind, boolean directory, long size, long mtimeNanos, int permissions, Object fileKey) {
    static Stat of(BasicFileAttributes a) {
      FileKind kind;
      int permissions = 0;
      if (a instanceof PosixFileAttributes) {
        for (PosixFilePermission p : ((PosixFileAttributes) a).permissions()) {
          permissions |= 1 << p.ordinal();
        }
      }
      if (a.isSymbolicLink()) {
        kind = FileKind.SYMLINK;
      } else if (a.isRegularFile()) {
        kind = (permissions & (1 << PosixFilePermission.OWNER_EXECUTE.ordinal())) != 0 ? FileKind.EXECUTABLE
            : FileKind.REGULAR;
      } else {
        kind = FileKind.ABSENT; // a directory, or a fifo, socket or device
      }
      var time = a.lastModifiedTime().toInstant();
      long mtime = time.getEpochSecond() * 1_000_000_000L + time.getNano();
      return new Stat(kind, a.isDirectory(), a.size(), mtime, permissions, a.fileKey());
    }

    boolean racy(long scanStartMillis) {
      return mtimeNanos / 1_000_000 >= scanStartMillis - RACY_MILLIS;
    }
  }

  /**
   * What a scan saw of one file: its stat, and the stored version or, when it could not be stored,
   * why ({@code version} is then null).
   */
  record Seen(Stat stat, FileVersion version, String unstored) {}

  /** One scan of the tree: eligible files, and the top-level excluded entries with their stat. */
  record Scan(long startMillis, long maxFileSize, Map<String, Seen> files, Map<String, Excluded> excluded) {}

  record Excluded(Stat stat, ProjectWalker.Exclusion why) {}

  private record Cached(Stat stat, FileVersion version, long cachedAtMillis) {}

  /** Stats the tree, stores what changed since the cache saw it, and returns the result. */
  synchronized WorkTreeSnapshot snapshot(Turn turn, long maxFileSize) {
    long start = System.currentTimeMillis();
    Map<String, Stat> stats = new HashMap<>();
    Map<String, Excluded> excluded = new HashMap<>();
    walk(stats, excluded);
    cache.keySet().retainAll(stats.keySet());

    Map<String, Seen> files = new HashMap<>(stats.size() * 2);
    List<String> toStore = new ArrayList<>();
    for (var entry : stats.entrySet()) {
      String path = entry.getKey();
      Stat stat = entry.getValue();
      if (tooBig(stat, maxFileSize)) {
        files.put(path, new Seen(stat, null, "larger than the " + maxFileSize + "-byte limit for undoable files"));
        cache.remove(path);
        continue;
      }
      Cached cached = cache.get(path);
      if (cached != null && cached.stat.equals(stat) && !cached.stat.racy(cached.cachedAtMillis)) {
        files.put(path, new Seen(stat, cached.version, null));
      } else {
        toStore.add(path);
      }
    }
    int stored = store(toStore, stats, files, start);
    LOG.debug("work tree snapshot of {}: {} files, {} stored, {} ms", root, files.size(), stored,
        System.currentTimeMillis() - start);
    return new WorkTreeSnapshot(this, turn, new Scan(start, maxFileSize, files, excluded), stored);
  }

  /** Reads and stores {@code paths} in batches; returns how many were read. */
  private int store(List<String> paths, Map<String, Stat> stats, Map<String, Seen> files, long start) {
    List<String> batchPaths = new ArrayList<>();
    List<FileState> batch = new ArrayList<>();
    long batchBytes = 0;
    int read = 0;
    for (String path : paths) {
      Stat stat = stats.get(path);
      FileState state;
      try {
        state = FileState.read(root.resolve(path));
      } catch (IOException e) {
        files.put(path, new Seen(stat, null, "unreadable (" + e.getMessage() + ")"));
        cache.remove(path);
        continue;
      }
      read++;
      if (!state.exists()) {
        continue; // gone since the walk: as if not seen
      }
      Cached cached = cache.get(path);
      if (cached != null && cached.version.kind() == state.kind() && cached.version.blob().equals(repo.hash(state))) {
        cache.put(path, new Cached(stat, cached.version, start));
        files.put(path, new Seen(stat, cached.version, null));
        continue;
      }
      batchPaths.add(path);
      batch.add(state);
      batchBytes += state.contentUnsafe().length;
      if (batchBytes >= BATCH_BYTES) {
        flush(batchPaths, batch, stats, files, start);
        batchBytes = 0;
      }
    }
    flush(batchPaths, batch, stats, files, start);
    return read;
  }

  private void flush(List<String> paths, List<FileState> states, Map<String, Stat> stats, Map<String, Seen> files,
      long start) {
    if (states.isEmpty()) {
      return;
    }
    List<FileVersion> versions = repo.insert(states);
    for (int i = 0; i < paths.size(); i++) {
      Stat stat = stats.get(paths.get(i));
      cache.put(paths.get(i), new Cached(stat, versions.get(i), start));
      files.put(paths.get(i), new Seen(stat, versions.get(i), null));
    }
    paths.clear();
    states.clear();
  }

  /** Stats the tree again and records in {@code turn} each file whose stat differs from {@code before}. */
  synchronized WorkTreeChanges recordChanges(Turn turn, Scan before) {
    long start = System.currentTimeMillis();
    Map<String, Stat> after = new HashMap<>();
    Map<String, Excluded> excludedAfter = new HashMap<>();
    walk(after, excludedAfter);

    List<FileChange> recorded = new ArrayList<>();
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    TreeSet<String> paths = new TreeSet<>(before.files().keySet());
    paths.addAll(after.keySet());
    for (String path : paths) {
      Seen was = before.files().get(path);
      Stat now = after.get(path);
      if (was != null && now != null && was.stat.equals(now) && !was.stat.racy(before.startMillis())) {
        continue;
      }
      if (was != null && was.version == null) {
        skipped.add(new WorkTreeChanges.Skipped(path, was.unstored));
        cache.remove(path);
        continue;
      }
      if (now != null && tooBig(now, before.maxFileSize())) {
        skipped.add(new WorkTreeChanges.Skipped(path, "larger than the " + before.maxFileSize()
            + "-byte limit for undoable files"));
        cache.remove(path);
        continue;
      }
      FileState state;
      try {
        state = now == null ? FileState.absent() : FileState.read(root.resolve(path));
      } catch (IOException e) {
        skipped.add(new WorkTreeChanges.Skipped(path, "unreadable (" + e.getMessage() + ")"));
        cache.remove(path);
        continue;
      }
      FileVersion prior = was == null ? FileVersion.ABSENT : was.version;
      if (prior.exists() && state.kind() == prior.kind() && repo.hash(state).equals(prior.blob())) {
        cache.put(path, new Cached(now, prior, start)); // touched, or racily clean: same content
        continue;
      }
      try {
        FileVersion stored = turn.recordStored(path, prior, state);
        recorded.add(new FileChange(path, prior, stored));
        if (now == null) {
          cache.remove(path);
        } else {
          cache.put(path, new Cached(now, stored, start));
        }
      } catch (CheckpointException e) {
        skipped.add(new WorkTreeChanges.Skipped(path, "not recorded: " + e.getMessage()));
        cache.remove(path);
      }
    }
    TreeSet<String> excluded = new TreeSet<>(before.excluded().keySet());
    excluded.addAll(excludedAfter.keySet());
    for (String path : excluded) {
      if (path.equals(".git") || path.endsWith("/.git")) {
        continue; // git's own bookkeeping: never interesting, never undone
      }
      Excluded was = before.excluded().get(path);
      Excluded now = excludedAfter.get(path);
      if (was != null && now != null && sameEntry(was.stat, now.stat)) {
        continue;
      }
      Excluded any = now != null ? now : was;
      boolean dir = any.stat.directory();
      String why = any.why == ProjectWalker.Exclusion.BUILT_IN ? "excluded" : "ignored by .gitignore";
      skipped.add(new WorkTreeChanges.Skipped(dir ? path + "/" : path, dir
          ? why + " directory; what changed inside it is not recorded"
          : why + "; not recorded"));
    }
    return new WorkTreeChanges(recorded, skipped);
  }

  /** Drops the cache: the next snapshot stores every file again. */
  synchronized void forget() {
    cache.clear();
  }

  synchronized int cachedCount() {
    return cache.size();
  }

  private static boolean tooBig(Stat stat, long maxFileSize) {
    return stat.kind() != FileKind.SYMLINK && stat.size() > maxFileSize;
  }

  /** A directory's own stat changes when entries are added, removed or renamed in it; its size is noise. */
  private static boolean sameEntry(Stat a, Stat b) {
    if (a.directory() != b.directory()) {
      return false;
    }
    return a.directory()
        ? a.mtimeNanos() == b.mtimeNanos() && Objects.equals(a.fileKey(), b.fileKey())
        : a.equals(b);
  }

  private void walk(Map<String, Stat> files, Map<String, Excluded> excluded) {
    try {
      walker.walk(new ProjectWalker.Visitor() {
        @Override
        public boolean entry(String path, Path file, BasicFileAttributes attributes) {
          Stat stat = Stat.of(attributes);
          if (stat.kind() != FileKind.ABSENT && !path.endsWith(WorkTree.TEMP_SUFFIX)) {
            files.put(path, stat);
          }
          return true;
        }

        @Override
        public void excluded(String path, Path file, BasicFileAttributes attributes, ProjectWalker.Exclusion why) {
          excluded.put(path, new Excluded(Stat.of(attributes), why));
        }
      });
    } catch (IOException e) {
      throw new CheckpointException("Could not scan the project's files: " + e.getMessage(), e);
    }
  }
}
