package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds what a shell command changed in the project, at a cost that grows with what changed, not
 * with the project: see {@link WorkTreeSnapshot} for the rules.
 *
 * <p>One per {@link ShadowStore}, shared by its tabs. Its {@link StatCache} is kept in the store
 * between processes. Content is stored only when needed: a file the user's git index vouches for
 * (clean, not racy, not converted on checkout) is never read before a command; its blob is copied
 * from the user's objects only if the command changed it. Other files are read once, stored
 * packed, and not read again while their stat is unchanged.
 */
final class ShellChangeTracker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShellChangeTracker.class);
  /** Bytes read before a batch of blobs is written: bounds the memory of a first scan. */
  private static final long BATCH_BYTES = 64L << 20;

  private final Path root;
  private final ShadowRepository repo;
  private final ProjectWalker walker;
  private final Optional<UserGitRepository> userGit;
  private final Path cacheFile;
  private final WriteLog writeLog;
  private final ShellJournal journal;
  private final Map<String, Background> background = new HashMap<>();
  private StatCache cache;

  ShellChangeTracker(Path root, ShadowRepository repo, List<String> exclusions, Path storeDir) {
    this.root = root;
    this.repo = repo;
    this.userGit = UserGitRepository.find(root);
    this.walker = new ProjectWalker(root, exclusions,
        userGit.map(UserGitRepository::ignoreContext).orElse(ProjectWalker.IgnoreContext.NONE));
    this.cacheFile = storeDir.resolve("stat-cache.bin");
    this.writeLog = new WriteLog(storeDir.resolve("writes.log"));
    this.journal = new ShellJournal(storeDir.resolve("shell-journal"));
  }

  /** What a scan saw of one file: its stat, and its content or, when that is not kept, why. */
  record Seen(FileStat stat, FileVersion version, StatCache.Source source, String unstored) {}

  record Excluded(FileStat stat, ProjectWalker.Exclusion why) {}

  /**
   * One scan of the tree: eligible files, top-level excluded entries, and the ignore rules it used.
   * {@code complete} is false for a baseline rebuilt from the stat cache, which lacks the files it
   * did not keep (too big, unreadable): a file missing from it counts as created only if its
   * change time is after the start.
   */
  record Scan(long startMillis, long maxFileSize, Map<String, Seen> files, Map<String, Excluded> excluded,
      ProjectWalker.IgnoreRules rules, boolean complete) {
    Scan(long startMillis, long maxFileSize, Map<String, Seen> files, Map<String, Excluded> excluded,
        ProjectWalker.IgnoreRules rules) {
      this(startMillis, maxFileSize, files, excluded, rules, true);
    }
  }

  /** Processes a command left running, and the tree as the tab last recorded it. */
  private record Background(Scan after, List<ProcessHandle> processes) {}

  WriteLog writeLog() {
    return writeLog;
  }

  /**
   * Stats the tree and makes sure the content of every file is known (cached, vouched for by the
   * user's index, or read and stored now); saves the cache and notes the command in the journal.
   */
  synchronized WorkTreeSnapshot snapshot(Turn turn, long maxFileSize) {
    settleBackground(turn);
    StatCache cache = cache();
    long start = System.currentTimeMillis();
    ProjectWalker.IgnoreRules rules = ProjectWalker.IgnoreRules.recording();
    Map<String, FileStat> stats = new HashMap<>();
    Map<String, Excluded> excluded = new HashMap<>();
    walk(rules, stats, excluded);
    cache.retainAll(stats.keySet());
    Map<String, UserGitRepository.Tracked> tracked =
        userGit.map(UserGitRepository::trackedFiles).orElse(Map.of());

    Map<String, Seen> files = new HashMap<>(stats.size() * 2);
    List<String> toRead = new ArrayList<>();
    for (var e : stats.entrySet()) {
      String path = e.getKey();
      FileStat stat = e.getValue();
      if (tooBig(stat, maxFileSize)) {
        files.put(path, new Seen(stat, null, null, "larger than the " + maxFileSize + "-byte limit for undoable files"));
        cache.remove(path);
        continue;
      }
      StatCache.Entry entry = cache.get(path);
      UserGitRepository.Tracked t = tracked.get(path);
      if (entry != null && entry.vouchesFor(stat) && (entry.source() == StatCache.Source.SHADOW
          || t != null && t.blob().equals(entry.version().blob()))) {
        files.put(path, new Seen(stat, entry.version(), entry.source(), null));
      } else if (t != null && t.kind() == stat.kind() && t.size() == stat.size() && t.mtimeNanos() == stat.mtimeNanos()
          && !rewrittenInPlace(entry, stat)) {
        FileVersion version = new FileVersion(t.kind(), t.blob(), stat.permissionBits());
        cache.put(path, new StatCache.Entry(stat, version, StatCache.Source.USER_GIT, start));
        files.put(path, new Seen(stat, version, StatCache.Source.USER_GIT, null));
      } else {
        toRead.add(path);
      }
    }
    int read = storeContent(toRead, stats, files, start);
    cache.save(); // what changed since the last save, if anything: the journal below names exactly this baseline
    Path journalFile = null;
    try {
      journalFile = cache.generation() == 0 ? null
          : journal.write(turn.tabId(), turn.number(), start, cache.generation(), maxFileSize, rules.texts());
    } catch (IOException e) {
      LOG.warn("could not write the shell journal; a kill during this command would lose its changes", e);
    }
    LOG.debug("work tree snapshot of {}: {} files, {} read, {} ms", root, files.size(), read,
        System.currentTimeMillis() - start);
    return new WorkTreeSnapshot(this, turn, new Scan(start, maxFileSize, files, excluded, rules), read, journalFile);
  }

  /** Same size and time as cached, but a different change time or inode: rewritten with its time put back. */
  private static boolean rewrittenInPlace(StatCache.Entry entry, FileStat stat) {
    return entry != null && entry.stat().size() == stat.size() && entry.stat().mtimeNanos() == stat.mtimeNanos()
        && !entry.stat().equals(stat);
  }

  /** Reads and stores {@code paths}, packed when many; returns how many were read. */
  private int storeContent(List<String> paths, Map<String, FileStat> stats, Map<String, Seen> files, long start) {
    List<String> batchPaths = new ArrayList<>();
    List<FileState> batch = new ArrayList<>();
    long batchBytes = 0;
    int read = 0;
    for (String path : paths) {
      FileStat stat = stats.get(path);
      FileState state;
      try {
        state = FileState.read(root.resolve(path));
      } catch (IOException e) {
        files.put(path, new Seen(stat, null, null, "unreadable (" + e.getMessage() + ")"));
        cache.remove(path);
        continue;
      }
      read++;
      if (!state.exists()) {
        continue; // gone since the walk: as if not seen
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

  private void flush(List<String> paths, List<FileState> states, Map<String, FileStat> stats, Map<String, Seen> files,
      long start) {
    if (states.isEmpty()) {
      return;
    }
    List<byte[]> contents = new ArrayList<>(states.size());
    states.forEach(s -> contents.add(s.contentUnsafe()));
    var ids = repo.insertBlobs(contents);
    for (int i = 0; i < paths.size(); i++) {
      FileVersion version = new FileVersion(states.get(i).kind(), ids.get(i), states.get(i).mode());
      FileStat stat = stats.get(paths.get(i));
      cache.put(paths.get(i), new StatCache.Entry(stat, version, StatCache.Source.SHADOW, start));
      files.put(paths.get(i), new Seen(stat, version, StatCache.Source.SHADOW, null));
    }
    paths.clear();
    states.clear();
  }

  /** What {@link #recordChanges} found: the changes, and the tree as it left it (built only when asked for). */
  record Recorded(WorkTreeChanges changes, java.util.function.Supplier<Scan> after) {}

  /**
   * Stats the tree again under the rules of {@code before} and records in {@code turn} each file
   * that differs from it, except what other tabs wrote meanwhile (the {@link WriteLog}).
   */
  synchronized Recorded recordChanges(Turn turn, Scan before) {
    StatCache cache = cache();
    long start = System.currentTimeMillis();
    Map<String, FileStat> after = new HashMap<>();
    Map<String, Excluded> excludedAfter = new HashMap<>();
    walk(before.rules().replaying(), after, excludedAfter);

    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    List<Pending> pending = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    before.files().forEach((path, was) -> {
      FileStat now = after.get(path);
      if (now == null || !was.stat().equals(now) || was.stat().racy(before.startMillis())) {
        paths.add(path);
      }
    });
    after.keySet().forEach(path -> {
      if (!before.files().containsKey(path)) {
        paths.add(path);
      }
    });
    paths.sort(null); // only what may have changed: a handful, not the project
    for (String path : paths) {
      Seen was = before.files().get(path);
      FileStat now = after.get(path);
      if (was != null && now != null && was.stat().equals(now) && !was.stat().racy(before.startMillis())) {
        continue;
      }
      if (was == null && !before.complete() && now.ctimeNanos() / 1_000_000 < before.startMillis() - 1_000) {
        continue; // there before the command, and not kept then: not the command's
      }
      if (was != null && was.version() == null) {
        skipped.add(new WorkTreeChanges.Skipped(path, was.unstored()));
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
      FileVersion prior = was == null ? FileVersion.ABSENT : was.version();
      FileVersion current = state.exists() ? new FileVersion(state.kind(), repo.hash(state), state.mode()) : FileVersion.ABSENT;
      if (prior.equals(current)) {
        if (now != null && was != null) {
          cache.put(path, new StatCache.Entry(now, prior, was.source(), start)); // touched, or racily clean
        }
        continue;
      }
      pending.add(new Pending(path, was, now, state, current));
    }
    pending = withoutOthersWrites(turn.tabId(), pending, before.startMillis(), start);

    List<FileChange> changes = new ArrayList<>();
    List<Pending> kept = new ArrayList<>();
    List<byte[]> toStore = new ArrayList<>();
    for (Pending p : pending) {
      if (p.was != null && p.was.source() == StatCache.Source.USER_GIT) {
        Optional<byte[]> bytes = userGit.flatMap(g -> g.readBlob(p.was.version().blob(), p.was.stat().size()));
        if (bytes.isEmpty()) {
          skipped.add(new WorkTreeChanges.Skipped(p.path, "its earlier content is not in your git repository's objects "
              + "as the index said; undo cannot bring it back"));
          cache.remove(p.path);
          continue;
        }
        toStore.add(bytes.get());
      }
      if (p.state.exists()) {
        toStore.add(p.state.contentUnsafe());
      }
      kept.add(p);
      changes.add(new FileChange(p.path, p.was == null ? FileVersion.ABSENT : p.was.version(), p.current));
    }
    repo.insertBlobs(toStore);
    Map<String, String> refused = turn.recordStoredChanges(changes);
    List<FileChange> recorded = new ArrayList<>();
    for (int i = 0; i < kept.size(); i++) {
      Pending p = kept.get(i);
      String why = refused.get(p.path);
      if (why != null) {
        skipped.add(new WorkTreeChanges.Skipped(p.path, "not recorded: " + why));
        cache.remove(p.path);
        continue;
      }
      recorded.add(changes.get(i));
      if (p.now == null) {
        cache.remove(p.path);
      } else {
        cache.put(p.path, new StatCache.Entry(p.now, p.current, StatCache.Source.SHADOW, start));
      }
    }
    writeLog.append(turn.tabId(), recorded, start);
    skipped.addAll(excludedChanges(before.excluded(), excludedAfter));
    for (String path : before.files().keySet()) {
      if (!after.containsKey(path)) {
        cache.remove(path);
      }
    }
    // Not saved here: the next snapshot saves what changed, before its command, as its journal needs.
    return new Recorded(new WorkTreeChanges(recorded, skipped), () -> scanOf(after, excludedAfter, before, start));
  }

  private record Pending(String path, Seen was, FileStat now, FileState state, FileVersion current) {}

  /**
   * Leaves out what another tab (of this process or another) wrote at that path while the command
   * ran: it is that tab's change, recorded in its own checkpoint. The file's new stat becomes the
   * baseline, so it is not taken for this tab's later either.
   */
  private List<Pending> withoutOthersWrites(String tab, List<Pending> pending, long sinceMillis, long now) {
    if (pending.isEmpty()) {
      return pending;
    }
    Map<String, List<WriteLog.Write>> byPath = new HashMap<>();
    for (WriteLog.Write w : writeLog.since(sinceMillis - FileStat.RACY_MILLIS)) {
      if (!w.tab().equals(tab)) {
        byPath.computeIfAbsent(w.path(), k -> new ArrayList<>()).add(w);
      }
    }
    if (byPath.isEmpty()) {
      return pending;
    }
    List<Pending> mine = new ArrayList<>();
    for (Pending p : pending) {
      List<WriteLog.Write> writes = byPath.getOrDefault(p.path, List.of());
      if (!writes.isEmpty() && writes.get(writes.size() - 1).wrote(p.current)) {
        LOG.debug("{} was written by tab {} while a command ran; not taken for the command's", p.path,
            writes.get(writes.size() - 1).tab());
        if (p.now == null) {
          cache.remove(p.path);
        } else if (p.current.exists() && repo.has(p.current.blob())) {
          cache.put(p.path, new StatCache.Entry(p.now, p.current, StatCache.Source.SHADOW, now));
        } else {
          cache.remove(p.path);
        }
        continue;
      }
      mine.add(p);
    }
    return mine;
  }

  /** The tree as the cache now knows it, for changes made after this by processes left running. */
  private Scan scanOf(Map<String, FileStat> stats, Map<String, Excluded> excluded, Scan before, long start) {
    Map<String, Seen> files = new HashMap<>(stats.size() * 2);
    stats.forEach((path, stat) -> {
      StatCache.Entry entry = cache.get(path);
      files.put(path, entry != null && entry.stat().equals(stat)
          ? new Seen(stat, entry.version(), entry.source(), null)
          : new Seen(stat, null, null, "changed while its earlier content was not kept"));
    });
    return new Scan(start, before.maxFileSize(), files, excluded, before.rules());
  }

  private static List<WorkTreeChanges.Skipped> excludedChanges(Map<String, Excluded> before, Map<String, Excluded> after) {
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    TreeSet<String> excluded = new TreeSet<>(before.keySet());
    excluded.addAll(after.keySet());
    for (String path : excluded) {
      if (path.equals(".git") || path.endsWith("/.git")) {
        continue; // git's own bookkeeping: never interesting, never undone
      }
      Excluded was = before.get(path);
      Excluded now = after.get(path);
      if (was != null && now != null && sameEntry(was.stat(), now.stat())) {
        continue;
      }
      Excluded any = now != null ? now : was;
      boolean dir = any.stat().directory();
      String why = any.why() == ProjectWalker.Exclusion.BUILT_IN ? "excluded" : "ignored by .gitignore";
      skipped.add(new WorkTreeChanges.Skipped(dir ? path + "/" : path, dir
          ? why + " directory; what changed inside it is not recorded"
          : why + "; not recorded"));
    }
    return skipped;
  }

  /**
   * Notes that a command of {@code turn}'s tab left processes running: what they change later is
   * recorded at the tab's next scan (its next command, or the end of its turn).
   */
  synchronized void leftRunning(Turn turn, Scan after, List<ProcessHandle> processes) {
    if (!processes.isEmpty()) {
      background.put(turn.tabId(), new Background(after, List.copyOf(processes)));
    }
  }

  /** Records in {@code turn} what the tab's background processes changed since its last scan. */
  synchronized WorkTreeChanges settleBackground(Turn turn) {
    Background left = background.remove(turn.tabId());
    if (left == null) {
      return new WorkTreeChanges(List.of(), List.of());
    }
    Recorded found = recordChanges(turn, left.after());
    if (!found.changes().recorded().isEmpty()) {
      turn.persist();
    }
    List<ProcessHandle> alive = left.processes().stream().filter(ProcessHandle::isAlive).toList();
    if (!alive.isEmpty()) {
      background.put(turn.tabId(), new Background(found.after().get(), alive));
    }
    return found.changes();
  }

  /**
   * Records into checkpoint {@code #n} of {@code tree} what a command changed that a killed process
   * could not record: for each journal of the tab whose process is gone, the project is compared
   * with the stat cache as saved before the command, under the ignore rules of its start.
   */
  synchronized List<String> recover(CheckpointTree tree) {
    List<String> report = new ArrayList<>();
    for (var orphan : journal.orphans(tree.tabId())) {
      ShellJournal.Entry entry = orphan.getValue();
      try {
        StatCache cache = cache();
        if (cache.generation() != entry.cacheGeneration()) {
          // the baseline was replaced since (or lost): comparing with it could take every file for new
          report.add("the changes of a shell command of checkpoint #" + entry.checkpoint()
              + " could not be recovered: the project's stat cache changed since it started");
          ShellJournal.remove(orphan.getKey());
          continue;
        }
        Map<String, Seen> files = new HashMap<>();
        cache.entries().forEach((path, e) -> files.put(path, new Seen(e.stat(), e.version(), e.source(), null)));
        Scan before = new Scan(entry.startMillis(), entry.maxFileSize(), files, Map.of(),
            ProjectWalker.IgnoreRules.fixed(entry.ignoreFiles()), false);
        String where;
        WorkTreeChanges changes;
        if (tree.has(entry.checkpoint())) {
          changes = tree.amend(entry.checkpoint(), turn -> recordChanges(turn, before).changes());
          where = "checkpoint #" + entry.checkpoint();
        } else {
          // stopped before the checkpoint was saved anywhere: a checkpoint of their own keeps them undoable
          Turn turn = tree.begin();
          changes = recordChanges(turn, before).changes();
          turn.finish(CheckpointStatus.CANCELLED);
          where = "new checkpoint #" + turn.number();
        }
        if (!changes.recorded().isEmpty()) {
          report.add(where + " now holds " + changes.recorded().size()
              + " file change(s) of a shell command that was running when Waymark stopped");
        }
        ShellJournal.remove(orphan.getKey());
      } catch (RuntimeException e) {
        LOG.warn("could not recover the changes of a shell command from {}", orphan.getKey(), e);
        report.add("the changes of a shell command of checkpoint #" + entry.checkpoint()
            + " could not be recovered: " + e.getMessage());
      }
    }
    return report;
  }

  /** Drops the cache: the next snapshot reads every file again. */
  synchronized void forget() {
    cache().clear();
    cache.save();
  }

  /** Saves what the cache learnt since its last save (at close: the next process starts from it). */
  private void saveQuietly() {
    if (cache != null) {
      cache.save();
    }
  }

  synchronized int cachedCount() {
    return cache().size();
  }

  private StatCache cache() {
    if (cache == null) {
      cache = StatCache.load(cacheFile);
    }
    return cache;
  }

  private static boolean tooBig(FileStat stat, long maxFileSize) {
    return stat.kind() != FileKind.SYMLINK && stat.size() > maxFileSize;
  }

  /** A directory's own stat changes when entries are added, removed or renamed in it; its size is noise. */
  private static boolean sameEntry(FileStat a, FileStat b) {
    if (a.directory() != b.directory()) {
      return false;
    }
    return a.directory()
        ? a.mtimeNanos() == b.mtimeNanos() && a.inode() == b.inode()
        : a.equals(b);
  }

  private void walk(ProjectWalker.IgnoreRules rules, Map<String, FileStat> files, Map<String, Excluded> excluded) {
    try {
      walker.scan(rules, new ProjectWalker.StatVisitor() {
        @Override
        public void entry(String path, FileStat stat) {
          if (stat.isFile() && !path.endsWith(WorkTree.TEMP_SUFFIX)) {
            files.put(path, stat);
          }
        }

        @Override
        public void excluded(String path, FileStat stat, ProjectWalker.Exclusion why) {
          excluded.put(path, new Excluded(stat, why));
        }
      });
    } catch (IOException e) {
      throw new CheckpointException("Could not scan the project's files: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    saveQuietly();
    userGit.ifPresent(UserGitRepository::close);
  }
}
