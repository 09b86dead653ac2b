package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.checkpoint.project.UserGitRepository;
import dev.waymark.core.checkpoint.project.UserObjectLinks;
import dev.waymark.core.checkpoint.shell.Scan.Excluded;
import dev.waymark.core.checkpoint.shell.Scan.Seen;
import dev.waymark.core.checkpoint.shell.Scan.Tree;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is on the project's disk and what each file held: walks the project (or brings the latest
 * walk up to date from file notifications), classifies each file through the stat cache and the
 * user's git index, stores what neither vouches for, and compares a later walk with an earlier
 * scan. Knows nothing of tabs or checkpoints: {@link ShellChangeTracker} decides what a
 * difference means for a command.
 *
 * <p>Not thread-safe: used under the tracker's lock, but for {@link #stopScanAhead}.
 */
final class Scanner {
  private static final Logger LOG = LoggerFactory.getLogger(Scanner.class);
  /** Reads what a whole walk needs besides the walk (the user's index, the stat cache) alongside it. */
  private static final Executor BESIDE = task -> {
    Thread thread = new Thread(task, "waymark-scan-beside");
    thread.setDaemon(true);
    thread.start();
  };

  private final Path root;
  private final ShadowRepository repo;
  private final TreeWalks walks;
  private final Optional<UserGitRepository> userGit;
  /** Links to the user's objects, so that a command deleting them cannot take away what the index vouched for. */
  private final Optional<UserObjectLinks> objectLinks;
  private final Path cacheFile;
  /** Which cache generations journals of running commands still need, so that a save keeps them. */
  private final ShellJournal journal;
  /** What scans see of directories' modes, for a restore that makes one again. */
  private final DirectoryModes directoryModes;
  private StatCache cache;
  /** The newest scan a watch keeps up to date: the next one starts from it. */
  private volatile Scan latest; // read without the tracker's lock by a layer's start (ShellChangeTracker.vouchedNow)
  private volatile boolean closing;
  private volatile boolean scanningAhead;

  Scanner(Path root, ShadowRepository repo, ProjectWalker walker, Optional<UserGitRepository> userGit,
      Optional<UserObjectLinks> objectLinks, Path storeDir, ShellJournal journal, DirectoryModes directoryModes) {
    this.root = root;
    this.repo = repo;
    this.walks = new TreeWalks(root, walker, userGit, storeDir.resolve("watch-cookies"), directoryModes,
        this::checkScanAhead);
    this.userGit = userGit;
    this.objectLinks = objectLinks;
    this.cacheFile = storeDir.resolve("stat-cache.bin");
    this.journal = journal;
    this.directoryModes = directoryModes;
  }

  /** What taking a scan cost: files looked at and read, and whether the user's index was read. */
  record Scanned(Scan scan, int examined, int read, boolean readUsersIndex) {}

  /**
   * What a later walk found may differ from an earlier scan: each path whose content changed
   * ({@link Pending}), what cannot be recorded and why, the tree walked, and when it started.
   */
  record Compared(Tree tree, List<Pending> pending, List<WorkTreeChanges.Skipped> skipped, long start) {}

  /** The stat cache's file in the store. */
  Path cacheFile() {
    return cacheFile;
  }

  /** The newest scan, if the watch keeps it up to date. */
  Scan latest() {
    return latest;
  }

  /** Whether the latest scan can be brought up to date from the watch, without a walk. */
  boolean updatable() {
    Scan scan = latest;
    return scan != null && scan.tree().mark().isPresent() && walks.watching();
  }

  /** The paths (files and directories) the watch saw touched since {@code mark}, as of now; empty when it cannot say. */
  Optional<Set<String>> touchedSince(long mark) {
    return walks.touchedSince(mark);
  }

  /** Whether a scan ahead can start: the store is not closing. */
  boolean open() {
    return !closing;
  }

  /**
   * Marks a scan ahead (see {@link ShellChangeTracker#prepare}) as under way, so that closing the
   * store abandons it; runs {@code scan} and returns whether it ran to its end.
   */
  boolean ahead(Runnable scan) {
    scanningAhead = true;
    try {
      scan.run();
      return true;
    } catch (ScanAbandoned e) {
      return false;
    } finally {
      scanningAhead = false;
    }
  }

  /** Why a change to {@code path} (whose entry is {@code stat}) is not recorded under {@code rules}; null when it is. */
  Exclusion exclusionOf(String path, FileStat stat, IgnoreRules rules) {
    return walks.exclusionOf(path, stat, rules);
  }

  /** Stops a scan ahead where it is, so that closing the store does not wait for it (what it found is dropped). */
  void stopScanAhead() {
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

  /** A scan of the tree, brought up to date from the latest one when the watch allows; the cache is saved. */
  Scanned scan(long maxFileSize, long start, ObjLongConsumer<Scan> beforeCommand) {
    Scan base = latest != null && latest.maxFileSize() == maxFileSize ? latest : null;
    // the stat cache is read beside a whole walk (unless already read)
    var cacheLater = cache != null ? CompletableFuture.completedFuture(cache)
        : CompletableFuture.supplyAsync(() -> StatCache.load(cacheFile), BESIDE);
    // a file the store knows unchanged stays walked, whatever ignore rule appeared since (the agent may write one)
    walks.keep((path, stat) -> {
      StatCache.Entry entry = cacheLater.join().get(path);
      return entry != null && entry.stat().equals(stat);
    }, () -> cacheLater.join().entries().keySet());
    Tree tree = base == null ? null
        : walks.update(base.tree(), base.rules().extending()).filter(t -> !t.ignoreFileTouched()).orElse(null);
    IndexLookup index = new IndexLookup(userGit);
    if (tree == null) {
      base = null;
      // unless the cache already agrees with it, the user's index is read beside the walk too
      var indexLater = cacheLater.thenAcceptAsync(c -> {
        if (!index.cacheAgrees(c) && index.stamp.kind() != FileKind.ABSENT) {
          LOG.debug("the stat cache was checked against {}, the user's index is now {}", c.indexStamp(), index.stamp);
          index.tracked();
        }
      }, BESIDE);
      tree = walks.walk(IgnoreRules.recording());
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
      if (Scan.tooBig(stat, maxFileSize)) {
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
    int read = new ContentStore(root, repo, this::checkScanAhead, cache).storeContent(toRead, stats, classified, start);
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

  /**
   * Walks again under the rules of {@code before} (only what the watch saw touched, when it can
   * say) and lists each file whose content differs from it (see {@link ScanComparison}).
   */
  Compared compare(Scan before, long start) {
    return new ScanComparison(root, repo, walks).compare(before, cache(), start);
  }

  /**
   * Once what {@code compared} found is recorded: files gone from its tree leave the cache, and
   * the scan that what the command left running is compared with next (the latest, when the watch
   * keeps it up to date; built only when asked for otherwise).
   */
  Supplier<Scan> following(Compared compared, Scan before) {
    Tree tree = compared.tree();
    for (String path : tree.derived() ? tree.changed() : before.files().keySet()) {
      if (!tree.files().containsKey(path)) {
        cache.remove(path);
      }
    }
    // Not saved here: the next snapshot saves what changed, before its command, as its journal needs.
    if (tree.mark().isPresent() && !tree.ignoreFileTouched()) {
      Scan scan = scanOf(tree, before, compared.start());
      latest = scan; // the next command starts from it, with what the watch saw since
      return () -> scan;
    }
    latest = null;
    return () -> scanOf(tree, before, compared.start());
  }

  /** Whether git turns CRLF into LF as it stores {@code path} (a text attribute, core.autocrlf). */
  boolean normalisesLineEndings(String path) {
    return userGit.map(g -> g.normalisesLineEndings(path)).orElse(false);
  }

  /** Reads the user's objects from now on, and links those the index vouched for (see {@link UserObjectLinks}). */
  void keepUsersObjects(boolean first) {
    objectLinks.ifPresent(links -> links.renew(first));
  }

  /** Opens the user's objects, which the first changed file's earlier content is read from. */
  void openUsersObjects() {
    userGit.ifPresent(UserGitRepository::openObjects);
  }

  /**
   * The bytes the file at {@code path} held when the user's index vouched for it with
   * {@code blob}: the blob, or, where git turns CRLF into LF as it stores a file (a text attribute,
   * core.autocrlf), the blob with each LF a CRLF again when that gives exactly the file's size
   * (then every line ended so). Empty when neither is the file.
   */
  Optional<byte[]> fromUsersObjects(String path, ObjectId blob, long size) {
    // the attributes are read only for a blob of another size than the file: not for every changed file
    BooleanSupplier normalised = () -> userGit.map(g -> g.normalisesLineEndings(path)).orElse(false);
    return userGit.flatMap(g -> g.readBlob(blob, size, normalised))
        .or(() -> objectLinks.flatMap(links -> links.readBlob(blob, size, normalised)));
  }

  /** The tree as the cache now knows it, for changes made after this by processes left running. */
  private Scan scanOf(Tree tree, Scan before, long start) {
    Map<String, Seen> files = new HashMap<>();
    Set<String> gone = new HashSet<>();
    Set<String> unsettled = new HashSet<>();
    BiConsumer<String, FileStat> know = (path, stat) -> {
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

  /** See {@link ExcludedChanges#between}. */
  static List<WorkTreeChanges.Skipped> excludedChanges(PathTable<Excluded> before, PathTable<Excluded> after) {
    return ExcludedChanges.between(before, after);
  }

  /** Drops the cache: the next snapshot reads every file again. */
  void forget() {
    latest = null;
    cache().clear();
    cache.save(journal::generationsInUse);
  }

  /** Saves what the cache learnt since its last save (at close: the next process starts from it). */
  void saveQuietly() {
    if (cache != null) {
      cache.save(journal::generationsInUse);
    }
  }

  int cachedCount() {
    return cache().size();
  }

  StatCache cache() {
    if (cache == null) {
      cache = StatCache.load(cacheFile);
    }
    return cache;
  }

  /** Stops the file notifications and saves what the cache learnt (the next process starts from it). */
  void close() {
    walks.close();
    saveQuietly();
  }
}
