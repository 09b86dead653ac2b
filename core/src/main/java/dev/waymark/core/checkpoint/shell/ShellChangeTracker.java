package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.project.CaptureThreads;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.project.IgnoreContext;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.checkpoint.project.UserGitRepository;
import dev.waymark.core.checkpoint.project.UserObjectLinks;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import dev.waymark.core.checkpoint.store.ProjectId;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture by observation: finds what a shell command changed in the project by comparing it
 * after the command with a scan taken before, at a cost that grows with what changed, not with
 * the project (see {@code WorkTreeSnapshot}, the facade's handle on one command, for the rules).
 * It orchestrates the parts: the {@link Scanner} (what is on disk and what it held), the
 * {@link ShellJournal} (a kill loses nothing), {@link OtherWriters} (what other tabs wrote
 * meanwhile is not the command's), {@link CommandJobs} (what a command left running, followed for both captures),
 * {@link ShellRecovery} (what a killed Waymark could not record), and the project's
 * {@link CommandSlot} (such commands take turns).
 *
 * <p>One per store, shared by its tabs. Content is stored only when needed: a file the user's git
 * index vouches for (clean, not racy, not converted on checkout) is never read before a command;
 * its blob is copied from the user's objects only if the command changed it.
 */
public final class ShellChangeTracker implements CommandCapture, ProjectView, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShellChangeTracker.class);

  private final Path root;
  private final ShadowRepository repo;
  private final Optional<UserGitRepository> userGit;
  private final Scanner scanner;
  private final WriteLog writeLog;
  private final OtherWriters otherWriters;
  private final ShellJournal journal;
  private final CommandJobs jobs;
  private final CommandJobs.ComparedCapture asJobsCapture;
  private final ShellRecovery recovery;
  private final NestedProjects nested;
  /** The store's walk and watch threads: stopped with it. */
  private final CaptureThreads threads = new CaptureThreads();

  public ShellChangeTracker(Path root, ShadowRepository repo, List<String> exclusions, Path storeDir,
      DirectoryModes directoryModes, WriteLog writeLog, CommandJobs jobs) {
    this.root = root;
    this.repo = repo;
    this.userGit = UserGitRepository.find(root);
    ProjectWalker walker = new ProjectWalker(root, exclusions,
        userGit.map(UserGitRepository::ignoreContext).orElse(IgnoreContext.NONE), threads);
    this.journal = journalOf(storeDir);
    this.scanner = new Scanner(root, repo, walker, userGit,
        userGit.map(g -> new UserObjectLinks(g.objectsDirectory(), storeDir.resolve("user-objects"))), storeDir, journal,
        directoryModes);
    this.writeLog = writeLog;
    this.otherWriters = new OtherWriters(writeLog, repo);
    this.jobs = jobs;
    this.asJobsCapture = new CommandJobs.ComparedCapture() {
      @Override
      public Recorded record(TabRecords turn, Scan from) {
        return recordChanges(turn, from);
      }

      @Override
      public Scan scanNow(long maxFileSize) {
        return scanner.scan(maxFileSize, wallClock.getAsLong(), null).scan();
      }

      @Override
      public boolean unlessACommandRuns(Runnable action) {
        return ShellChangeTracker.this.unlessACommandRuns(action);
      }

      @Override
      public <T> T locked(Supplier<T> work) {
        synchronized (ShellChangeTracker.this) {
          return work.get();
        }
      }
    };
    this.recovery = new ShellRecovery(journal, scanner.cacheFile(), jobs);
    this.nested = new NestedProjects(root, storeDir);
    // what this Waymark writes is noted for those on enclosing and nested projects too: never their commands' work
    String tabPrefix = ProjectId.of(root) + "/";
    this.writeLog.mirrorTo(() -> nested.related().stream()
        .map(other -> new WriteLog.Mirror(new WriteLog(other.storeDir().resolve("writes.log")),
            path -> other.pathFrom(root, path), tabPrefix))
        .toList());
  }

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

  /** The shell journal of the store kept in {@code storeDir}: the tracker's, and where {@link CommandJobs} keeps jobs' marks. */
  public static ShellJournal journalOf(Path storeDir) {
    return new ShellJournal(storeDir.resolve("shell-journal"));
  }

  @Override
  public Exclusion exclusionOf(String path, FileStat stat, IgnoreRules rules) {
    return scanner.exclusionOf(path, stat, rules); // a layer's changes are judged as the observed capture's
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
    long start = wallClock.getAsLong();
    Path[] journalFile = {null};
    Scanner.Scanned scanned = scanner.scan(maxFileSize, start, (scan, generation) -> {
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
    scanner.keepUsersObjects(!journal.anyBut(journalFile[0]));
    return new Started(scanned.scan(), scanned.examined(), scanned.read(), scanned.readUsersIndex(), journalFile[0],
        mark);
  }

  /**
   * Takes the scan the next command will start from, ahead of it (as Waymark opens a project):
   * the whole walk, and reading what neither the cache nor the user's index knows, are done before
   * the model asks for a command, and file notifications keep the scan up to date until then.
   */
  public synchronized void prepare(long maxFileSize) {
    if (journal.anyOrphans() || !scanner.open()) {
      return; // a killed command is recovered against the cache as it left it: its tab's first command scans
    }
    boolean whole = scanner.ahead(() -> {
      Scan latest = scanner.latest();
      // a scan the watch kept is brought up to date (it looks only at what was touched since), never walked again
      if (latest == null || latest.maxFileSize() != maxFileSize || scanner.updatable()) {
        long start = wallClock.getAsLong();
        scanner.scan(maxFileSize, start, null);
      }
      scanner.openUsersObjects(); // the first changed file's earlier content is read from there
      scanner.keepUsersObjects(!journal.anyBut(null)); // the first links, ahead of the first command
    });
    if (!whole) {
      LOG.debug("the scan ahead stopped: the store is closing");
    }
  }

  private final AtomicBoolean refreshing = new AtomicBoolean();

  /**
   * {@link #prepare} in the background, once no other is under way: after a layer's apply (which
   * takes no scan), the latest scan is brought up to date with what was touched since, so that it
   * still vouches for what the next command in a layer starts from ({@link #vouchNow}).
   */
  @Override
  public void refreshSoon(long maxFileSize) {
    if (!scanner.updatable() || !refreshing.compareAndSet(false, true)) {
      return; // no scan to bring up to date (none taken, or no watch): never a walk of the whole tree for this
    }
    prepareInBackground(maxFileSize, "waymark-scan-refresh",
        "the scan could not be brought up to date; the next command in a layer merges less").whenComplete(
            (done, failure) -> refreshing.set(false));
  }

  /** {@link #prepare} on a daemon thread of its own; completes when it ended, whether or not it failed (then logged). */
  public CompletableFuture<Void> prepareInBackground(long maxFileSize, String threadName,
      String ifItFails) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        prepare(maxFileSize);
      } catch (RuntimeException e) {
        LOG.info(ifItFails, e);
      } finally {
        done.complete(null);
      }
    }, threadName);
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /** Runs between the cache's save before a command and the writing of its journal (a test acts there). */
  private volatile Runnable beforeJournal = () -> {};

  public void beforeJournal(Runnable hook) {
    beforeJournal = hook;
  }

  /** The wall time scans start at and writes are noted at, against the files' times; a test's own moves when it says. */
  private volatile LongSupplier wallClock = System::currentTimeMillis;

  public void wallClock(LongSupplier millis) {
    wallClock = millis;
  }

  /** Stops a scan ahead where it is, so that closing the store does not wait for it (what it found is dropped). */
  public void stopScanAhead() {
    scanner.stopScanAhead();
  }

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


  /** A command's changes as {@link #after} recorded them, with what its processes left running start from. */
  private record Finished(WorkTreeChanges changes, Supplier<Scan> scan, CommandMark mark)
      implements CommandCapture.After {}

  /**
   * Stats the tree again under the rules of {@code before} and records in {@code turn} each file
   * that differs from it, except what other tabs wrote meanwhile (the {@link WriteLog}).
   */
  synchronized Recorded recordChanges(TabRecords turn, Scan before) {
    StatCache cache = scanner.cache();
    Scanner.Compared compared = scanner.compare(before, wallClock.getAsLong());
    long start = compared.start();
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>(compared.skipped());
    List<Pending> pending = otherWriters.withoutOthersWrites(turn.tabId(), compared.pending(), before.startMillis(),
        start, cache);

    List<FileChange> changes = new ArrayList<>();
    List<Pending> kept = new ArrayList<>();
    List<byte[]> toStore = new ArrayList<>();
    for (Pending p : pending) {
      FileVersion prior = p.was() == null ? FileVersion.ABSENT : p.was().version();
      if (p.was() != null && p.was().source() == StatCache.Source.USER_GIT) {
        Optional<byte[]> bytes = scanner.fromUsersObjects(p.path(), prior.blob(), p.was().stat().size());
        if (bytes.isEmpty()) {
          boolean normalised = scanner.normalisesLineEndings(p.path());
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
    writeLog.append(turn.tabId(), recorded, wallClock.getAsLong());
    skipped.addAll(Scanner.excludedChanges(before.excluded(), compared.tree().excluded()));
    return new Recorded(new WorkTreeChanges(recorded, skipped), scanner.following(compared, before));
  }

  /** Notes that a command of {@code turn}'s tab left processes running (see {@link CommandJobs#leftRunning}). */
  synchronized void leftRunning(TabRecords turn, Scan after, List<ProcessHandle> processes, CommandMark mark) {
    jobs.leftRunning(turn, after, processes, mark, asJobsCapture);
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
    return jobs.settleCompared(turn);
  }

  /**
   * What the project's files hold at this moment, as far as the latest scan and the file
   * notifications since it vouch for it: a file the watch saw untouched since the scan (itself and
   * every directory above it) holds what the scan saw. Taken as a command starts in a layer, it is
   * the version the command started from of a file someone changes while it runs. Empty without a
   * scan the watch keeps up to date. Takes no lock: a scan under way is not waited for.
   */
  @Override
  public Optional<Vouch> vouchNow() {
    Scan scan = scanner.latest();
    if (scan == null || scan.tree().mark().isEmpty()) {
      return Optional.empty();
    }
    // the watch hands over a set of its own: kept as it is, not copied again
    return scanner.touchedSince(scan.tree().mark().getAsLong())
        .map(touched -> (Vouch) new Vouched(scan, Collections.unmodifiableSet(touched)));
  }

  /** A scan, and the paths touched since it up to the moment {@link #vouchNow} was asked. */
  record Vouched(Scan scan, Set<String> touched) implements Vouch {
    /** What the scan saw of {@code path}, if neither it nor a directory above it was touched since. */
    Optional<Scan.Seen> seen(String path) {
      for (String at = path; ; at = at.substring(0, at.lastIndexOf('/'))) {
        if (touched.contains(at)) {
          return Optional.empty();
        }
        if (at.indexOf('/') < 0) {
          break;
        }
      }
      if (touched.contains("") || scan.unsettled().contains(path)) {
        return Optional.empty();
      }
      return Optional.ofNullable(scan.files().get(path));
    }
  }

  /** The bytes {@code path} held when {@code vouched} was taken, when it vouches for them and they can be read. */
  @Override
  public boolean sawThen(Vouch vouch, String path) {
    return vouch instanceof Vouched vouched && vouched.seen(path).isPresent();
  }

  @Override
  public Optional<byte[]> heldThen(Vouch vouch, String path) {
    if (!(vouch instanceof Vouched vouched)) {
      return Optional.empty();
    }
    Optional<Scan.Seen> seen = vouched.seen(path);
    if (seen.isEmpty() || seen.get().version() == null || !seen.get().version().exists()) {
      return Optional.empty();
    }
    FileVersion version = seen.get().version();
    if (seen.get().source() == StatCache.Source.USER_GIT) {
      return scanner.fromUsersObjects(path, version.blob(), seen.get().stat().size());
    }
    try {
      return Optional.of(repo.read(version.blob()));
    } catch (IOException | RuntimeException notKept) {
      return Optional.empty(); // the blob was pruned since, or never stored
    }
  }

  /**
   * Records into checkpoint {@code #n} of {@code tree} what a command changed that a killed process
   * could not record: for each journal another process left in the tab (the caller holds the tab,
   * so that process no longer runs a command in it, even if its id still shows), the project is compared
   * with the stat cache as saved before the command, under the ignore rules of its start.
   */
  public synchronized List<String> recover(TabHistory tree) {
    return recovery.recover(tree, scanner::cache, (turn, before) -> recordChanges(turn, before).changes());
  }


  /** Drops the cache: the next snapshot reads every file again. */
  public synchronized void forget() {
    scanner.forget();
  }

  public synchronized int cachedCount() {
    return scanner.cachedCount();
  }

  @Override
  public synchronized void close() {
    scanner.close();
    userGit.ifPresent(UserGitRepository::close);
    threads.close();
  }
}
