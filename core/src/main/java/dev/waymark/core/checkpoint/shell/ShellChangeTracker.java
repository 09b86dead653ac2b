package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.lib.TempNames;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.checkpoint.project.UserGitRepository;
import dev.waymark.core.checkpoint.project.UserObjectLinks;
import dev.waymark.core.checkpoint.shell.BackgroundJobs.Background;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import dev.waymark.core.checkpoint.store.ProjectId;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds what a shell command changed in the project, at a cost that grows with what changed, not
 * with the project: see {@code WorkTreeSnapshot} (the facade's handle on one command) for the rules.
 *
 * <p>One per {@link ShadowStore}, shared by its tabs. Its {@link StatCache} is kept in the store
 * between processes. Content is stored only when needed: a file the user's git index vouches for
 * (clean, not racy, not converted on checkout) is never read before a command; its blob is copied
 * from the user's objects only if the command changed it. Other files are read once, stored
 * packed, and not read again while their stat is unchanged.
 */
public final class ShellChangeTracker implements CommandCapture, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShellChangeTracker.class);
  /** Bytes read before a batch of blobs is written: bounds the memory of a first scan. */
  private static final long BATCH_BYTES = 64L << 20;

  private final Path root;
  private final ShadowRepository repo;
  private final ProjectWalker walker;
  private final Optional<UserGitRepository> userGit;
  /** Links to the user's objects, so that a command deleting them cannot take away what the index vouched for. */
  private final Optional<UserObjectLinks> objectLinks;
  private final Path cacheFile;
  private final WriteLog writeLog;
  private final OtherWriters otherWriters;
  private final ShellJournal journal;
  private final BackgroundJobs background;
  private final ShellRecovery recovery;
  private final Path cookies;
  private StatCache cache;
  /** File notifications, when the platform has them: null until the first whole walk starts them. */
  private TreeWatch watch;
  /** The newest scan a watch keeps up to date: the next one starts from it. */
  private Scan latest;
  private volatile boolean closing;
  private volatile boolean scanningAhead;
  /** Reads what a whole walk needs besides the walk (the user's index, the stat cache) alongside it. */
  private static final java.util.concurrent.Executor BESIDE = task -> {
    Thread thread = new Thread(task, "waymark-scan-beside");
    thread.setDaemon(true);
    thread.start();
  };
  /** Watches that stopped (overflow, too many directories): after a few, this project is walked whole. */
  private int watchesStopped;
  private static final int MAX_WATCH_RESTARTS = 3;

  public ShellChangeTracker(Path root, ShadowRepository repo, List<String> exclusions, Path storeDir,
      DirectoryModes directoryModes) {
    this.root = root;
    this.directoryModes = directoryModes;
    this.repo = repo;
    this.userGit = UserGitRepository.find(root);
    this.walker = new ProjectWalker(root, exclusions,
        userGit.map(UserGitRepository::ignoreContext).orElse(ProjectWalker.IgnoreContext.NONE));
    this.cacheFile = storeDir.resolve("stat-cache.bin");
    this.writeLog = new WriteLog(storeDir.resolve("writes.log"));
    this.otherWriters = new OtherWriters(writeLog, repo);
    this.journal = new ShellJournal(storeDir.resolve("shell-journal"));
    this.background = new BackgroundJobs(journal);
    this.recovery = new ShellRecovery(journal, cacheFile, background);
    this.cookies = storeDir.resolve("watch-cookies");
    this.objectLinks = userGit.map(g -> new UserObjectLinks(g.objectsDirectory(), storeDir.resolve("user-objects")));
    this.nested = new NestedProjects(root, storeDir);
    // what this Waymark writes is noted for those on enclosing and nested projects too: never their commands' work
    String tabPrefix = ProjectId.of(root) + "/";
    this.writeLog.mirrorTo(() -> nested.related().stream()
        .map(other -> new WriteLog.Mirror(new WriteLog(other.storeDir().resolve("writes.log")),
            path -> other.pathFrom(root, path), tabPrefix))
        .toList());
  }

  private final NestedProjects nested;
  /** What scans see of directories' modes, for a restore that makes one again. */
  private final DirectoryModes directoryModes;

  /**
   * Whether this process runs inside a shell command of another Waymark on this same project
   * (its journal here names the mark this process inherited): that command holds the slot for
   * it, and waiting for it would wait forever. A command on another project does not count.
   */
  public boolean insideACommandHere() {
    // a command on an enclosing or nested project holds the same slot (see NestedProjects)
    return CommandSlot.parentMark().map(mark -> journal.running(mark) || nested.related().stream()
        .anyMatch(other -> new ShellJournal(other.storeDir().resolve("shell-journal")).running(mark))).orElse(false);
  }

  /**
   * The project's shell-command slot (see {@link CommandSlot}), shared with the Waymarks on
   * projects that enclose this one or lie inside it: they see the same files.
   */
  public CommandSlot commandSlot() {
    return new CommandSlot(nested.slotFile());
  }

  /**
   * Runs {@code action} unless a shell command runs on the project right now (in any tab or
   * Waymark); returns whether it ran. What background jobs changed is found by comparing the
   * tree with an earlier scan: during a command, that command's files would be taken for theirs.
   */
  private boolean unlessACommandRuns(Runnable action) {
    if (insideACommandHere()) {
      action.run(); // this Waymark runs inside another's command, whose slot is held for it
      return true;
    }
    try (CommandSlot.Held free = commandSlot().take(0).orElse(null)) {
      if (free == null) {
        return false;
      }
      action.run();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** What a scan saw of one file: its stat, and its content or, when that is not kept, why. */
  record Seen(FileStat stat, FileVersion version, StatCache.Source source, String unstored) {}

  record Excluded(FileStat stat, ProjectWalker.Exclusion why) {}

  /**
   * The entries a walk found: tracked files, left-out entries, the directories gone into, the
   * ignore rules it used, and the watch's sequence number it is up to date with, if any.
   * {@code changed} names the files that may differ from the tree it was brought up to date from
   * (null after a whole walk: any may).
   */
  record Tree(PathTable<FileStat> files, PathTable<Excluded> excluded, PathTable<FileStat> directories,
      ProjectWalker.IgnoreRules rules, OptionalLong mark, Set<String> changed, boolean ignoreFileTouched) {
    static Tree unwalked(ProjectWalker.IgnoreRules rules) {
      return new Tree(PathTable.empty(), PathTable.empty(), PathTable.empty(), rules, OptionalLong.empty(), null, false);
    }

    /** Whether only {@link #changed} was looked at again. */
    boolean derived() {
      return changed != null;
    }
  }

  /**
   * One scan of the tree: what it knows of each eligible file, and the tree it saw. {@code complete}
   * is false for a baseline rebuilt from the stat cache, which lacks the files it did not keep (too
   * big, unreadable): a file missing from it counts as created only if its change time is after
   * the start. {@code unsettled} names the files whose content it does not know.
   */
  public record Scan(long startMillis, long maxFileSize, PathTable<Seen> files, Tree tree, boolean complete,
      Set<String> unsettled) {
    PathTable<Excluded> excluded() {
      return tree.excluded();
    }

    ProjectWalker.IgnoreRules rules() {
      return tree.rules();
    }
  }

  /** How many processes that commands left running still run, with what they started since (what quitting would stop). */
  public int runningInBackground() {
    return background.running();
  }

  /** Why a change to {@code path} (whose entry is {@code stat}) is not recorded under {@code rules}; null when it is. */
  public ProjectWalker.Exclusion exclusionOf(String path, FileStat stat, ProjectWalker.IgnoreRules rules) {
    return walker.exclusionOf(path, stat, rules); // a layer's changes are judged as the observed capture's
  }

  public WriteLog writeLog() {
    return writeLog;
  }

  public Path journalDirectory() {
    return journal.directory();
  }

  /**
   * Stats the tree and makes sure the content of every file is known (cached, vouched for by the
   * user's index, or read and stored now); saves the cache and notes the command in the journal.
   */
  synchronized Started snapshot(TabRecords turn, long maxFileSize, CommandMark mark) {
    settleBackground(turn);
    long start = System.currentTimeMillis();
    Path[] journalFile = {null};
    Scanned scanned = scan(maxFileSize, start, (scan, generation) -> {
      beforeJournal.run();
      if (generation == 0) {
        LOG.warn("the stat cache could not be saved; a kill during this command would lose its changes");
        return;
      }
      try {
        journalFile[0] = journal.write(turn.tabId(), turn.number(), start, generation, maxFileSize,
            scan.rules().texts(), mark);
      } catch (IOException e) {
        LOG.warn("could not write the shell journal; a kill during this command would lose its changes", e);
      }
    });
    // the objects the index vouched for, kept as the command starts (it may delete them)
    objectLinks.ifPresent(links -> links.renew(!journal.anyBut(journalFile[0])));
    return new Started(scanned.scan(), scanned.examined(), scanned.read(), scanned.readUsersIndex(), journalFile[0],
        mark);
  }

  /**
   * Takes the scan the next command will start from, ahead of it (as Waymark opens a project):
   * the whole walk, and reading what neither the cache nor the user's index knows, are done before
   * the model asks for a command, and file notifications keep the scan up to date until then.
   */
  public synchronized void prepare(long maxFileSize) {
    if (journal.anyOrphans() || closing) {
      return; // a killed command is recovered against the cache as it left it: its tab's first command scans
    }
    scanningAhead = true;
    try {
      if (latest == null || latest.maxFileSize() != maxFileSize) {
        long start = System.currentTimeMillis();
        scan(maxFileSize, start, null);
      }
      userGit.ifPresent(UserGitRepository::openObjects); // the first changed file's earlier content is read from there
      objectLinks.ifPresent(links -> links.renew(!journal.anyBut(null))); // the first links, ahead of the first command
    } catch (ScanAbandoned e) {
      LOG.debug("the scan ahead stopped: the store is closing");
    } finally {
      scanningAhead = false;
    }
  }

  /** Runs between the cache's save before a command and the writing of its journal (a test acts there). */
  private volatile Runnable beforeJournal = () -> {};

  public void beforeJournal(Runnable hook) {
    beforeJournal = hook;
  }

  /** Stops a scan ahead where it is, so that closing the store does not wait for it (what it found is dropped). */
  public void stopScanAhead() {
    closing = true;
  }

  /** Thrown inside a scan ahead when the store closes. */
  private static final class ScanAbandoned extends RuntimeException {
    ScanAbandoned() {
      super(null, null, false, false);
    }
  }

  private void checkScanAhead() {
    if (closing && scanningAhead) {
      throw new ScanAbandoned();
    }
  }

  private record Scanned(Scan scan, int examined, int read, boolean readUsersIndex) {}

  /**
   * A command's start, as {@link #snapshot} left it: the scan its changes are compared with, what
   * taking it cost, and the journal that lets a crash during the command lose nothing.
   */
  public record Started(Scan before, int examined, int stored, boolean readUsersIndex, Path journal, CommandMark mark)
      implements CommandCapture.Before {
    @Override
    public int fileCount() {
      return before.files().size();
    }
  }

  @Override
  public Before before(TabRecords checkpoint, long maxFileSize, CommandMark mark) {
    return snapshot(checkpoint, maxFileSize, mark);
  }

  /** Notes the session in the command's journal, so that a kill of this process leaves none of its jobs running. */
  @Override
  public Before started(Before before, CommandMark leading) {
    Started started = (Started) before;
    if (!leading.value().equals(started.mark().value())) {
      throw new IllegalArgumentException("not the mark of this command");
    }
    if (started.journal() != null) {
      ShellJournal.started(started.journal(), leading);
    }
    return new Started(started.before(), started.examined(), started.stored(), started.readUsersIndex(),
        started.journal(), leading);
  }

  /** Records the changes, keeps them under the checkpoint's tag, then drops the journal that would have recovered them. */
  @Override
  public After after(TabRecords checkpoint, Before before) {
    Started started = (Started) before;
    Recorded found = recordChanges(checkpoint, started.before());
    if (!found.changes().recorded().isEmpty()) {
      checkpoint.persist();
    }
    if (started.journal() != null) {
      ShellJournal.remove(started.journal());
    }
    return new Finished(found.changes(), found.after(), started.mark());
  }

  @Override
  public void leftRunning(TabRecords checkpoint, After after, List<ProcessHandle> processes) {
    Finished finished = (Finished) after;
    leftRunning(checkpoint, finished.scan().get(), processes, finished.mark());
  }

  /**
   * The user's index for one scan: read at most once, and only when a file needs it. While the
   * index file is as the stat cache last saw it, the cache's entries from it need no second look.
   */
  private final class IndexLookup {
    /** The index file at the scan's start. */
    final FileStat stamp = userGit.map(UserGitRepository::indexStamp).orElse(FileStat.MISSING);
    private volatile UserGitRepository.Index read;

    /** Whether the cache's entries taken from the user's index still agree with it. */
    boolean cacheAgrees(StatCache cache) {
      return stamp.kind() != FileKind.ABSENT && stamp.equals(cache.indexStamp());
    }

    Map<String, UserGitRepository.Tracked> tracked() {
      if (read == null) {
        read = userGit.map(UserGitRepository::index).orElse(UserGitRepository.Index.NONE);
      }
      return read.tracked();
    }

    boolean wasRead() {
      return read != null && read != UserGitRepository.Index.NONE;
    }

    /** The index every user's-git entry of the cache agrees with after this scan; MISSING when they may differ. */
    FileStat agreedAfter(boolean cacheAgreed, boolean whole) {
      if (read == null) {
        return cacheAgreed ? stamp : FileStat.MISSING;
      }
      return (whole && !cacheAgreed) || read.stamp().equals(stamp) && cacheAgreed ? read.stamp() : FileStat.MISSING;
    }
  }

  /** A scan of the tree, brought up to date from the latest one when the watch allows; the cache is saved. */
  private Scanned scan(long maxFileSize, long start, java.util.function.ObjLongConsumer<Scan> beforeCommand) {
    Scan base = latest != null && latest.maxFileSize() == maxFileSize ? latest : null;
    // the stat cache is read beside a whole walk (unless already read)
    var cacheLater = cache != null ? java.util.concurrent.CompletableFuture.completedFuture(cache)
        : java.util.concurrent.CompletableFuture.supplyAsync(() -> StatCache.load(cacheFile), BESIDE);
    // a file the store knows unchanged stays walked, whatever ignore rule appeared since (the agent may write one)
    walker.keep(kept((path, stat) -> {
      StatCache.Entry entry = cacheLater.join().get(path);
      return entry != null && entry.stat().equals(stat);
    }, sortedOnce(() -> cacheLater.join().entries().keySet())));
    Tree tree = base == null ? null
        : update(base.tree(), base.rules().extending()).filter(t -> !t.ignoreFileTouched()).orElse(null);
    IndexLookup index = new IndexLookup();
    if (tree == null) {
      base = null;
      // unless the cache already agrees with it, the user's index is read beside the walk too
      var indexLater = cacheLater.thenAcceptAsync(c -> {
        if (!index.cacheAgrees(c) && index.stamp.kind() != FileKind.ABSENT) {
          LOG.debug("the stat cache was checked against {}, the user's index is now {}", c.indexStamp(), index.stamp);
          index.tracked();
        }
      }, BESIDE);
      tree = walk(ProjectWalker.IgnoreRules.recording());
      cache = cacheLater.join();
      indexLater.join();
    }
    StatCache cache = cache();
    boolean cacheAgreed = index.cacheAgrees(cache);

    PathTable<FileStat> stats = tree.files();
    Set<String> toClassify;
    Set<String> gone = new HashSet<>();
    if (base == null) {
      toClassify = stats.keySet();
      cache.retainAll(toClassify);
    } else {
      // only what was touched since the scan it starts from, and what that scan did not know
      toClassify = new HashSet<>(tree.changed());
      toClassify.addAll(base.unsettled());
      for (String path : toClassify) {
        if (!stats.containsKey(path)) {
          gone.add(path);
          cache.remove(path);
        }
      }
      toClassify.removeAll(gone);
    }
    Map<String, Seen> classified = new HashMap<>(toClassify.size() * 2);
    List<String> toRead = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    long unknownBytes = 0;
    for (String path : toClassify) {
      FileStat stat = stats.get(path);
      if (tooBig(stat, maxFileSize)) {
        classified.put(path, new Seen(stat, null, null, "larger than the " + maxFileSize + "-byte limit for undoable files"));
        cache.remove(path);
        continue;
      }
      StatCache.Entry entry = cache.get(path);
      if (entry != null && entry.vouchesFor(stat) && (entry.source() == StatCache.Source.SHADOW || cacheAgreed
          || sameBlob(index.tracked().get(path), entry))) {
        classified.put(path, new Seen(stat, entry.version(), entry.source(), null));
      } else if (entry != null && entry.stat().equals(stat)) {
        toRead.add(path); // racily clean: only its bytes can tell, whatever the index says
      } else {
        unknown.add(path);
        unknownBytes += stat.size();
      }
    }
    // The index is read for these only when reading them would cost more (a few files edited since the last process
    // are read, not a 10 MB index).
    if (!index.wasRead() && unknownBytes < index.stamp.size() / 4) {
      toRead.addAll(unknown);
      unknown.clear();
    }
    for (String path : unknown) {
      FileStat stat = stats.get(path);
      StatCache.Entry entry = cache.get(path);
      UserGitRepository.Tracked t = index.tracked().get(path);
      if (t != null && t.kind() == stat.kind() && t.size() == stat.size() && t.mtimeNanos() == stat.mtimeNanos()
          && !rewrittenInPlace(entry, stat)) {
        FileVersion version = new FileVersion(t.kind(), t.blob(), stat.permissionBits());
        cache.put(path, new StatCache.Entry(stat, version, StatCache.Source.USER_GIT, start));
        classified.put(path, new Seen(stat, version, StatCache.Source.USER_GIT, null));
      } else {
        toRead.add(path);
      }
    }
    int read = storeContent(toRead, stats, classified, start);
    for (String path : toRead) {
      if (!classified.containsKey(path)) {
        gone.add(path); // gone since the walk: as if not seen
      }
    }
    Set<String> unsettled = new HashSet<>();
    classified.forEach((path, seen) -> {
      if (seen.version() == null) {
        unsettled.add(path);
      }
    });
    PathTable<Seen> files = base == null ? PathTable.of(classified) : base.files().with(classified, gone);
    Scan scan = new Scan(start, maxFileSize, files, tree, true, Set.copyOf(unsettled));
    cache.indexStamp(index.agreedAfter(cacheAgreed, base == null));
    // before a command: saved, and its journal written, under one hold of the cache's lock (it names exactly this baseline)
    cache.save(journal::generationsInUse, beforeCommand == null ? null : generation -> beforeCommand.accept(scan, generation));
    LOG.debug("scan of {}: {} files, {} looked at, {} read, user's index {}, {} ms", root, files.size(),
        toClassify.size(), read, index.wasRead() ? "read" : "not read", System.currentTimeMillis() - start);
    latest = tree.mark().isPresent() ? scan : null;
    return new Scanned(scan, toClassify.size(), read, index.wasRead());
  }

  private static boolean sameBlob(UserGitRepository.Tracked tracked, StatCache.Entry entry) {
    return tracked != null && tracked.blob().equals(entry.version().blob());
  }

  /** Same size and time as cached, but a different change time or inode: rewritten with its time put back. */
  private static boolean rewrittenInPlace(StatCache.Entry entry, FileStat stat) {
    return entry != null && entry.stat().size() == stat.size() && entry.stat().mtimeNanos() == stat.mtimeNanos()
        && !entry.stat().equals(stat);
  }

  /** Reads and stores {@code paths}, packed when many; returns how many were read. */
  private int storeContent(List<String> paths, PathTable<FileStat> stats, Map<String, Seen> files, long start) {
    List<String> batchPaths = new ArrayList<>();
    List<FileState> batch = new ArrayList<>();
    long batchBytes = 0;
    int read = 0;
    for (String path : paths) {
      checkScanAhead();
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

  private void flush(List<String> paths, List<FileState> states, PathTable<FileStat> stats, Map<String, Seen> files,
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

  /** A command's changes as {@link #after} recorded them, with what its processes left running start from. */
  private record Finished(WorkTreeChanges changes, java.util.function.Supplier<Scan> scan, CommandMark mark)
      implements CommandCapture.After {}

  /**
   * Stats the tree again under the rules of {@code before} and records in {@code turn} each file
   * that differs from it, except what other tabs wrote meanwhile (the {@link WriteLog}).
   */
  synchronized Recorded recordChanges(TabRecords turn, Scan before) {
    StatCache cache = cache();
    long start = System.currentTimeMillis();
    ProjectWalker.IgnoreRules rules = before.rules().replaying();
    // what the scan before walked, whatever it is now
    walker.keep(kept((path, stat) -> before.files().containsKey(path), sortedOnce(() -> before.files().keySet())));
    Tree tree = update(before.tree(), rules).orElseGet(() -> walk(rules));
    PathTable<FileStat> after = tree.files();
    PathTable<Excluded> excludedAfter = tree.excluded();

    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    List<Pending> pending = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    if (tree.derived()) {
      paths.addAll(tree.changed()); // every write since the snapshot was noticed by the watch
    } else {
      before.files().forEach((path, was) -> {
        FileStat now = after.get(path);
        if (now == null || !was.stat().equals(now) || was.stat().racy(before.startMillis())) {
          paths.add(path);
        }
      });
      after.forEach((path, stat) -> {
        if (!before.files().containsKey(path)) {
          paths.add(path);
        }
      });
    }
    paths.sort(null); // only what may have changed: a handful, not the project
    MovedOutOfExclusion moved = new MovedOutOfExclusion(before.excluded(), excludedAfter, tree.directories());
    for (String path : paths) {
      Seen was = before.files().get(path);
      FileStat now = after.get(path);
      if (was != null && now != null && was.stat().equals(now) && !was.stat().racy(before.startMillis())) {
        continue;
      }
      Optional<String> from = was == null && now != null ? moved.source(path, now) : Optional.empty();
      if (from.isPresent()) {
        // the user's own file under a new name: recorded as created, an undo would delete the only copy
        skipped.add(new WorkTreeChanges.Skipped(path, "moved from " + from.get() + "; not recorded, and undo leaves it"));
        cache.remove(path);
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
    pending = otherWriters.withoutOthersWrites(turn.tabId(), pending, before.startMillis(), start, cache);

    List<FileChange> changes = new ArrayList<>();
    List<Pending> kept = new ArrayList<>();
    List<byte[]> toStore = new ArrayList<>();
    for (Pending p : pending) {
      FileVersion prior = p.was() == null ? FileVersion.ABSENT : p.was().version();
      if (p.was() != null && p.was().source() == StatCache.Source.USER_GIT) {
        Optional<byte[]> bytes = fromUsersObjects(p.path(), prior.blob(), p.was().stat().size());
        if (bytes.isEmpty()) {
          boolean normalised = userGit.map(g -> g.normalisesLineEndings(p.path())).orElse(false);
          skipped.add(new WorkTreeChanges.Skipped(p.path(), normalised
              ? "git keeps it with LF line endings, and its mixed endings cannot be rebuilt from that; undo cannot bring "
                  + "it back"
              : "its earlier content is not in your git repository's objects as the index said; undo cannot bring it "
                  + "back"));
          cache.remove(p.path());
          continue;
        }
        toStore.add(bytes.get());
        prior = new FileVersion(prior.kind(), repo.hash(FileState.of(prior.kind(), bytes.get())), prior.mode());
      }
      if (p.state().exists()) {
        toStore.add(p.state().contentUnsafe());
      }
      kept.add(p);
      changes.add(new FileChange(p.path(), prior, p.current()));
    }
    repo.insertBlobs(toStore);
    Map<String, String> refused = turn.recordStoredChanges(changes);
    List<FileChange> recorded = new ArrayList<>();
    for (int i = 0; i < kept.size(); i++) {
      Pending p = kept.get(i);
      String why = refused.get(p.path());
      if (why != null) {
        skipped.add(new WorkTreeChanges.Skipped(p.path(), "not recorded: " + why));
        cache.remove(p.path());
        continue;
      }
      recorded.add(changes.get(i));
      if (p.now() == null) {
        cache.remove(p.path());
      } else {
        cache.put(p.path(), new StatCache.Entry(p.now(), p.disk(), StatCache.Source.SHADOW, start));
      }
    }
    // noted as of now: the command may have written at any moment since its start, which a command of another tab
    // that started meanwhile must not take for before its own start
    writeLog.append(turn.tabId(), recorded, System.currentTimeMillis());
    skipped.addAll(excludedChanges(before.excluded(), excludedAfter));
    for (String path : tree.derived() ? tree.changed() : before.files().keySet()) {
      if (!after.containsKey(path)) {
        cache.remove(path);
      }
    }
    // Not saved here: the next snapshot saves what changed, before its command, as its journal needs.
    WorkTreeChanges found = new WorkTreeChanges(recorded, skipped);
    if (tree.mark().isPresent() && !tree.ignoreFileTouched()) {
      Scan scan = scanOf(tree, before, start);
      latest = scan; // the next command starts from it, with what the watch saw since
      return new Recorded(found, () -> scan);
    }
    latest = null;
    return new Recorded(found, () -> scanOf(tree, before, start));
  }

  /**
   * What a walk keeps whatever the ignore rules say: what the user's git tracks (git never ignores
   * a tracked file, so neither does Waymark, whatever its built-in list says), and the files
   * {@code known} accepts. The index's paths are read only when a rule leaves something out.
   */
  private ProjectWalker.Kept kept(java.util.function.BiPredicate<String, FileStat> known,
      java.util.function.Supplier<java.util.NavigableSet<String>> knownPaths) {
    return new ProjectWalker.Kept() {
      @Override
      public boolean file(String path, FileStat stat) {
        return tracked().contains(path) || known.test(path, stat);
      }

      @Override
      public boolean below(String dir) {
        String inside = dir + "/";
        return holdsBelow(tracked(), inside) || holdsBelow(knownPaths.get(), inside);
      }

      private boolean holdsBelow(java.util.NavigableSet<String> paths, String inside) {
        String next = paths.ceiling(inside);
        return next != null && next.startsWith(inside);
      }

      private java.util.NavigableSet<String> tracked() {
        return userGit.map(UserGitRepository::trackedPaths).orElse(java.util.Collections.emptyNavigableSet());
      }
    };
  }

  /** {@code paths}, sorted the first time they are asked for (only a walk that meets a left-out directory asks). */
  private static java.util.function.Supplier<java.util.NavigableSet<String>> sortedOnce(
      java.util.function.Supplier<java.util.Collection<String>> paths) {
    java.util.concurrent.atomic.AtomicReference<java.util.NavigableSet<String>> sorted =
        new java.util.concurrent.atomic.AtomicReference<>();
    return () -> {
      java.util.NavigableSet<String> have = sorted.get();
      if (have == null) {
        have = new java.util.TreeSet<>(paths.get());
        sorted.compareAndSet(null, have);
      }
      return sorted.get();
    };
  }

  /**
   * Finds files that a command did not create but moved out of a left-out place ({@code mv data
   * data-old} with {@code data/} ignored, {@code mv .env env.txt}): the entry, or a directory
   * above it, has the inode of a left-out entry that is gone since. No checkpoint holds their
   * content, so they must not be recorded as new files, which an undo would delete.
   */
  private static final class MovedOutOfExclusion {
    private final PathTable<Excluded> before;
    private final PathTable<Excluded> after;
    private final PathTable<FileStat> directories;
    private Map<Long, String> goneByInode;

    MovedOutOfExclusion(PathTable<Excluded> before, PathTable<Excluded> after, PathTable<FileStat> directories) {
      this.before = before;
      this.after = after;
      this.directories = directories;
    }

    /** Where {@code path} (new, with {@code stat}) came from, described for the user, if it was left out before. */
    Optional<String> source(String path, FileStat stat) {
      Map<Long, String> gone = gone();
      if (gone.isEmpty()) {
        return Optional.empty();
      }
      String from = gone.get(stat.inode());
      if (from != null && !before.get(from).stat().directory()) {
        return Optional.of(describe(from));
      }
      for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
        FileStat dir = directories.get(path.substring(0, slash));
        String was = dir == null ? null : gone.get(dir.inode());
        if (was != null && before.get(was).stat().directory()) {
          return Optional.of(describe(was));
        }
      }
      return Optional.empty();
    }

    private String describe(String path) {
      Excluded was = before.get(path);
      return path + (was.stat().directory() ? "/" : "") + ", which was " + was.why().described();
    }

    private Map<Long, String> gone() {
      if (goneByInode == null) {
        goneByInode = new HashMap<>();
        before.forEach((path, was) -> {
          Excluded now = after.get(path);
          if (was.stat().inode() != 0 && (now == null || now.stat().inode() != was.stat().inode())) {
            goneByInode.put(was.stat().inode(), path);
          }
        });
      }
      return goneByInode;
    }
  }

  /**
   * The bytes the file at {@code path} held when the user's index vouched for it with
   * {@code blob}: the blob, or, where git turns CRLF into LF as it stores a file (a text attribute,
   * core.autocrlf), the blob with each LF a CRLF again when that gives exactly the file's size
   * (then every line ended so). Empty when neither is the file.
   */
  private Optional<byte[]> fromUsersObjects(String path, org.eclipse.jgit.lib.ObjectId blob, long size) {
    // the attributes are read only for a blob of another size than the file: not for every changed file
    java.util.function.BooleanSupplier normalised = () -> userGit.map(g -> g.normalisesLineEndings(path)).orElse(false);
    return userGit.flatMap(g -> g.readBlob(blob, size, normalised))
        .or(() -> objectLinks.flatMap(links -> links.readBlob(blob, size, normalised)));
  }

  /** The tree as the cache now knows it, for changes made after this by processes left running. */
  private Scan scanOf(Tree tree, Scan before, long start) {
    Map<String, Seen> files = new HashMap<>();
    Set<String> gone = new HashSet<>();
    Set<String> unsettled = new HashSet<>();
    java.util.function.BiConsumer<String, FileStat> know = (path, stat) -> {
      StatCache.Entry entry = cache.get(path);
      if (entry != null && entry.stat().equals(stat)) {
        files.put(path, new Seen(stat, entry.version(), entry.source(), null));
      } else {
        files.put(path, new Seen(stat, null, null, "changed while its earlier content was not kept"));
        unsettled.add(path);
      }
    };
    if (!tree.derived()) {
      tree.files().forEach(know);
      return new Scan(start, before.maxFileSize(), PathTable.of(files), tree, true, Set.copyOf(unsettled));
    }
    for (String path : tree.changed()) {
      FileStat stat = tree.files().get(path);
      if (stat == null) {
        gone.add(path);
      } else {
        know.accept(path, stat);
      }
    }
    for (String path : before.unsettled()) {
      if (!files.containsKey(path) && !gone.contains(path)) {
        unsettled.add(path);
      }
    }
    return new Scan(start, before.maxFileSize(), before.files().with(files, gone), tree, true, Set.copyOf(unsettled));
  }

  private static List<WorkTreeChanges.Skipped> excludedChanges(PathTable<Excluded> before, PathTable<Excluded> after) {
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    // after a watch, only what it touched can differ: not a walk over every ignored entry
    TreeSet<String> excluded = after.pathsDifferingFrom(before).map(TreeSet::new).orElseGet(() -> {
      TreeSet<String> all = new TreeSet<>(before.keySet());
      all.addAll(after.keySet());
      return all;
    });
    for (String path : excluded) {
      if (path.equals(".git") || path.endsWith("/.git")) {
        continue; // git's own bookkeeping: never interesting, never undone
      }
      Excluded was = before.get(path);
      Excluded now = after.get(path);
      if (was == null && now == null || was != null && now != null && sameEntry(was.stat(), now.stat())) {
        continue;
      }
      Excluded any = now != null ? now : was;
      boolean dir = any.stat().directory();
      if (any.why() == ProjectWalker.Exclusion.NOT_UTF8) {
        skipped.add(new WorkTreeChanges.Skipped(path, "its name is not UTF-8, which Waymark cannot read, record or "
            + "restore; not recorded"));
        continue;
      }
      String why = any.why().described();
      skipped.add(new WorkTreeChanges.Skipped(dir ? path + "/" : path, dir
          ? why + "; what changed inside it is not recorded"
          : why + "; not recorded"));
    }
    return skipped;
  }

  /**
   * Notes that a command of {@code turn}'s tab left processes running: what they change later is
   * recorded at the tab's next scan (its next command, or the end of its turn).
   */
  synchronized void leftRunning(TabRecords turn, Scan after, List<ProcessHandle> processes, CommandMark mark) {
    // what earlier commands left and still runs is followed on, with this command's
    Background earlier = background.get(turn.tabId());
    java.util.LinkedHashSet<ProcessHandle> all = new java.util.LinkedHashSet<>(processes);
    Set<String> marks = new java.util.TreeSet<>();
    if (!processes.isEmpty()) {
      marks.add(mark.encoded());
    }
    if (earlier != null) {
      earlier.processes().stream().filter(ProcessHandle::isAlive).forEach(all::add);
      marks.addAll(earlier.marks());
    }
    if (!all.isEmpty()) {
      background.follow(turn.tabId(), new Background(turn.history(), after, List.copyOf(all), Set.copyOf(marks)));
    }
  }

  /**
   * {@link #settleBackground} as a turn ends, unless a shell command runs on the project: then the
   * jobs stay followed and the tab's next scan records what they changed.
   */
  public void settleBackgroundUnlessACommandRuns(TabRecords turn) {
    unlessACommandRuns(() -> settleBackground(turn));
  }

  /** Records in {@code turn} what the tab's background processes changed since its last scan. */
  synchronized WorkTreeChanges settleBackground(TabRecords turn) {
    Background left = background.remove(turn.tabId());
    if (left == null) {
      return new WorkTreeChanges(List.of(), List.of());
    }
    Recorded found = recordChanges(turn, left.after());
    if (!found.changes().recorded().isEmpty()) {
      turn.persist();
    }
    List<ProcessHandle> alive = left.processes().stream().filter(ProcessHandle::isAlive).toList();
    background.follow(turn.tabId(), left.following(found.after().get(), alive));
    return found.changes();
  }

  /**
   * Before {@code tree} restores files: what its background processes changed since its last
   * scan is recorded in the checkpoint whose files are on disk (amended), so that the restore's
   * own writes are never taken for theirs and undoing that checkpoint undoes them too. Returns
   * the processes still running, for {@link #watchBackgroundFromHere}.
   */
  public synchronized StillRunning recordBackgroundSoFar(TabHistory tree) {
    Background left = background.remove(tree.tabId());
    if (left == null) {
      return StillRunning.NONE;
    }
    background.followedNow();
    int at = tree.filesAt();
    if (at > 0) {
      try {
        if (!unlessACommandRuns(() -> tree.amend(at, turn -> recordChanges(turn, left.after()).changes()))) {
          LOG.info("tab {}: a shell command runs on the project, so what background processes changed is left on disk, "
              + "unrecorded, rather than mixed with that command's files", tree.tabId());
        }
      } catch (RuntimeException e) {
        LOG.warn("could not record what background processes of tab {} changed before a restore", tree.tabId(), e);
      }
    } else {
      LOG.info("tab {}: what background processes changed on top of #0 is left on disk, unrecorded", tree.tabId());
    }
    return new StillRunning(left.processes().stream().filter(ProcessHandle::isAlive).toList(), left.after().maxFileSize(),
        left.marks());
  }

  /**
   * Stops the processes {@code tree}'s commands left running (its tab is closing, or Waymark is),
   * then records what they changed as {@link #recordBackgroundSoFar} does: nothing they would do later
   * can happen outside a checkpoint.
   */
  public synchronized void stopBackground(TabHistory tree) {
    Background left = background.get(tree.tabId());
    if (left == null || left.tree() != tree) {
      return;
    }
    CommandMark.stop(left.processes(), 2_000);
    recordBackgroundSoFar(tree);
    background.forgetMarks(tree.tabId());
  }

  /** Background processes of a tab that a restore found running, and the file size limit of their command. */
  record StillRunning(List<ProcessHandle> processes, long maxFileSize, Set<String> marks) {
    static final StillRunning NONE = new StillRunning(List.of(), 0, Set.of());
  }

  /**
   * After {@code tree} restored files: the background processes {@link #recordBackgroundSoFar} found
   * running are watched again from the restored files, so their later changes are recorded at
   * the tab's next scan, and the restore's writes are not.
   */
  public synchronized void watchBackgroundFromHere(TabHistory tree, StillRunning running) {
    List<ProcessHandle> alive = running.processes().stream().filter(ProcessHandle::isAlive).toList();
    if (running == StillRunning.NONE) {
      return;
    }
    background.follow(tree.tabId(), alive.isEmpty() ? null
        : new Background(tree, scan(running.maxFileSize(), System.currentTimeMillis(), null).scan(), alive, running.marks()));
  }

  /**
   * Records into checkpoint {@code #n} of {@code tree} what a command changed that a killed process
   * could not record: for each journal another process left in the tab (the caller holds the tab,
   * so that process no longer runs a command in it, even if its id still shows), the project is compared
   * with the stat cache as saved before the command, under the ignore rules of its start.
   */
  public synchronized List<String> recover(TabHistory tree) {
    return recovery.recover(tree, this::cache, (turn, before) -> recordChanges(turn, before).changes());
  }




  /** Drops the cache: the next snapshot reads every file again. */
  public synchronized void forget() {
    latest = null;
    cache().clear();
    cache.save(journal::generationsInUse);
  }

  /** Saves what the cache learnt since its last save (at close: the next process starts from it). */
  private void saveQuietly() {
    if (cache != null) {
      cache.save(journal::generationsInUse);
    }
  }

  public synchronized int cachedCount() {
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

  /**
   * Walks the whole project. File notifications start (again, if they had stopped) with it: each
   * directory is watched before it is listed, and the tree is marked as of just before the walk.
   */
  private Tree walk(ProjectWalker.IgnoreRules rules) {
    if ((watch == null || !watch.working()) && watchesStopped < MAX_WATCH_RESTARTS) {
      if (watch != null) {
        watch.close();
        watchesStopped++;
      }
      watch = watchesStopped < MAX_WATCH_RESTARTS ? TreeWatch.start(root, cookies).orElse(null) : null;
    }
    OptionalLong mark = watch == null ? OptionalLong.empty()
        : watch.sync().map(OptionalLong::of).orElse(OptionalLong.empty());
    Map<String, FileStat> files = new HashMap<>();
    Map<String, Excluded> excluded = new HashMap<>();
    Map<String, FileStat> directories = new HashMap<>();
    try {
      walker.scan(rules, collector(files::put, excluded::put, directories::put));
    } catch (IOException e) {
      throw new CheckpointException("Could not scan the project's files: " + e.getMessage(), e);
    }
    if (watch == null || !watch.working()) {
      mark = OptionalLong.empty();
    }
    directoryModes.save();
    return new Tree(PathTable.of(files), PathTable.of(excluded), PathTable.of(directories), rules, mark, null, false);
  }

  /**
   * {@code base} brought up to date with what the watch saw touched since it was taken: only those
   * paths are looked at again (a new directory is walked whole). Empty when the watch cannot say
   * (none, stopped, or {@code base} is older than what it can vouch for): walk the whole tree.
   */
  private Optional<Tree> update(Tree base, ProjectWalker.IgnoreRules rules) {
    if (watch == null || base.mark().isEmpty()) {
      return Optional.empty();
    }
    Optional<Long> now = watch.sync();
    Optional<Set<String>> touched = now.flatMap(n -> watch.touchedSince(base.mark().getAsLong()));
    if (touched.isEmpty()) {
      return Optional.empty();
    }
    PathTable.Editor<FileStat> files = base.files().edit();
    PathTable.Editor<Excluded> excluded = base.excluded().edit();
    PathTable.Editor<FileStat> directories = base.directories().edit();
    Set<String> changed = new HashSet<>();
    boolean ignoreFileTouched = false;
    List<String> hardLinked = new ArrayList<>();
    List<String> paths = new ArrayList<>(touched.get());
    paths.sort(null); // a directory before what is below it
    try {
      for (String path : paths) {
        if (path.isEmpty()) {
          return Optional.empty(); // the project's own directory went away or was replaced
        }
        if (path.indexOf('\uFFFD') >= 0) {
          return Optional.empty(); // perhaps a name that is not UTF-8, which only a walk sees as it is
        }
        int slash = path.lastIndexOf('/');
        String parent = slash < 0 ? "" : path.substring(0, slash);
        if (!parent.isEmpty() && !directories.containsKey(parent)) {
          Excluded left = excluded.get(parent);
          if (left != null && left.stat().directory()) {
            // in a left-out directory: only its own stat is kept, to say that something changed in it
            FileStat itself = FileStat.read(root.resolve(parent));
            if (itself == FileStat.MISSING) {
              excluded.remove(parent);
            } else {
              excluded.put(parent, new Excluded(itself, left.why()));
            }
          }
          continue; // below a directory that is gone or left out
        }
        ignoreFileTouched |= path.substring(slash + 1).equals(".gitignore");
        FileStat stat = FileStat.read(root.resolve(path));
        FileStat wasDirectory = directories.remove(path);
        if (files.remove(path) != null) {
          changed.add(path);
        }
        Excluded wasExcluded = excluded.remove(path);
        if (wasExcluded != null && wasExcluded.stat().directory()) {
          watch.forget(path);
        }
        ProjectWalker.Exclusion why = stat == FileStat.MISSING ? null : walker.exclusionOf(path, stat, rules);
        boolean sameDirectory = wasDirectory != null && why == null && stat.directory()
            && wasDirectory.inode() == stat.inode() && watch.watches(path);
        if (wasDirectory != null && !sameDirectory) {
          changed.addAll(files.removeBelow(path));
          excluded.removeBelow(path);
          directories.removeBelow(path);
          watch.forget(path);
        }
        if (stat == FileStat.MISSING) {
          continue;
        }
        if (why != null) {
          excluded.put(path, new Excluded(stat, why));
          if (stat.directory()) {
            watch.register(path);
          }
        } else if (stat.directory()) {
          directories.put(path, stat);
          directoryModes.saw(path, stat);
          if (!sameDirectory) {
            walker.scanFrom(path, rules, collector((p, s) -> {
              files.put(p, s);
              changed.add(p);
            }, excluded::put, directories::put));
          }
        } else if (stat.isFile() && !path.endsWith(TempNames.RESTORE_SUFFIX)) {
          files.put(path, stat);
          changed.add(path);
          if (stat.kind() != FileKind.SYMLINK && linkCount(root.resolve(path)) > 1) {
            hardLinked.add(path);
          }
        }
      }
      // a write through one name of a hard-linked file is reported for that name only: its other names changed too
      if (!hardLinked.isEmpty()) {
        Map<Long, List<String>> byInode = new HashMap<>();
        base.files().forEach((p, s) -> byInode.computeIfAbsent(s.inode(), k -> new ArrayList<>()).add(p));
        for (String path : hardLinked) {
          for (String sibling : byInode.getOrDefault(files.get(path).inode(), List.of())) {
            if (!changed.contains(sibling)) {
              FileStat itsStat = FileStat.read(root.resolve(sibling));
              if (itsStat.isFile()) {
                files.put(sibling, itsStat);
              } else {
                files.remove(sibling);
              }
              changed.add(sibling);
            }
          }
        }
      }
    } catch (IOException e) {
      LOG.debug("looking again at what changed failed; walking the whole project", e);
      return Optional.empty();
    }
    if (!watch.working()) {
      return Optional.empty();
    }
    directoryModes.save();
    return Optional.of(new Tree(files.build(), excluded.build(), directories.build(), rules, OptionalLong.of(now.get()),
        changed, ignoreFileTouched));
  }

  /** How many names the file at {@code file} has (1 where that cannot be read). */
  private static int linkCount(Path file) {
    try {
      return (Integer) java.nio.file.Files.getAttribute(file, "unix:nlink", java.nio.file.LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return 1;
    }
  }

  /** Hands what a scan finds to these; directories are watched as it enters them. */
  private ProjectWalker.StatVisitor collector(java.util.function.BiConsumer<String, FileStat> files,
      java.util.function.BiConsumer<String, Excluded> excluded, java.util.function.BiConsumer<String, FileStat> directories) {
    TreeWatch watched = watch;
    var registering = new java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.CompletableFuture<Void>>();
    return new ProjectWalker.StatVisitor() {
      @Override
      public void entry(String path, FileStat stat) {
        if (stat.isFile() && !path.endsWith(TempNames.RESTORE_SUFFIX)) {
          files.accept(path, stat);
        }
      }

      @Override
      public void excluded(String path, FileStat stat, ProjectWalker.Exclusion why) {
        excluded.accept(path, new Excluded(stat, why));
        if (watched != null && stat.directory()) {
          watched.register(path); // its own entries only: a change in it is reported, not recorded
        }
      }

      @Override
      public void directory(String path, FileStat stat) {
        directories.accept(path, stat);
        directoryModes.saw(path, stat);
      }

      @Override
      public void found(String dir) {
        if (watched != null) {
          registering.put(dir, watched.registerSoon(dir));
        }
      }

      @Override
      public void entering(String dir) {
        checkScanAhead();
        if (watched != null) {
          var soon = registering.remove(dir);
          if (soon != null) {
            soon.join(); // watched before it is listed: a change is either seen by the listing or reported
          } else {
            watched.register(dir);
          }
        }
      }
    };
  }

  @Override
  public synchronized void close() {
    for (Background left : background.all()) {
      try {
        stopBackground(left.tree());
      } catch (RuntimeException e) {
        LOG.warn("could not stop or record the background processes of tab {}", left.tree().tabId(), e);
      }
    }
    if (watch != null) {
      watch.close();
    }
    saveQuietly();
    userGit.ifPresent(UserGitRepository::close);
  }
}
