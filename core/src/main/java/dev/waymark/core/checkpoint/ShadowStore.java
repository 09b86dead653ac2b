package dev.waymark.core.checkpoint;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.TempNames;
import dev.waymark.core.checkpoint.restore.RestoreRecovery;
import dev.waymark.core.checkpoint.restore.SetAside;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.ShellChangeTracker;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import dev.waymark.core.checkpoint.store.Maintenance;
import dev.waymark.core.checkpoint.store.ProjectId;
import dev.waymark.core.checkpoint.store.ProjectLock;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.checkpoint.store.TabMoves.TabPosition;
import dev.waymark.core.checkpoint.store.TabMoves;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.Ref;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint store of one project directory: its shadow repository and the tabs that
 * checkpoint into it.
 *
 * <p>The shadow repository is bare and lives under {@code $WAYMARK_HOME/projects/<id>/shadow.git},
 * one per canonical project path. It never reads or writes the project's own {@code .git}, and it
 * works whether or not the project is a git repository. Opening the store rolls back a restore
 * that a crash interrupted (see {@link #recovered()}).
 *
 * <p>Thread-safe. Several tabs, in this process or others, may use one project at once.
 */
public final class ShadowStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShadowStore.class);
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
  static final String TAG_ROOT = "refs/tags/waymark/";
  /** The suffix of the temporary file {@code write_file} writes beside its target before the rename. */
  public static final String WRITE_TEMP_SUFFIX = ".waymark-write.tmp";
  private static final Pattern TAB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

  private final Path project;
  private final Path storeDir;
  private final ShadowRepository repo;
  private final WorkTree workTree;
  private final ProjectLock lock;
  private final RetentionPolicy retention;
  private final Clock clock;
  private final List<String> recovered;
  private final Maintenance maintenance;
  private final ShellChangeTracker changeTracker;
  private final TabMoves tabMoves;

  private ShadowStore(Path project, Path storeDir, ShadowRepository repo, RetentionPolicy retention, Clock clock,
      List<String> exclusions) {
    this.project = project;
    this.storeDir = storeDir;
    this.tabMoves = new TabMoves(storeDir.resolve("tabs"));
    this.maintenance = new Maintenance(repo);
    this.repo = repo;
    DirectoryModes directoryModes = new DirectoryModes(storeDir.resolve("directory-modes.json"));
    this.workTree = new WorkTree(project, openSetAside(storeDir), directoryModes);
    this.lock = new ProjectLock(storeDir.resolve("store.lock"));
    this.retention = retention;
    this.clock = clock;
    this.changeTracker = new ShellChangeTracker(project, repo, exclusions, storeDir, directoryModes);
    this.recovered = lock.run(() -> RestoreRecovery.rollBack(journalFile(), workTree, repo, clock));
  }

  private static SetAside openSetAside(Path storeDir) {
    try {
      return SetAside.open(storeDir.resolve("set-aside"));
    } catch (IOException | RuntimeException e) {
      LOG.warn("no set-aside directory in {}: a restore deletes files, and a redo writes them again", storeDir, e);
      return null;
    }
  }

  /** How many processes that shell commands left running in this store's tabs still run: closing it stops them. */
  public int backgroundProcesses() {
    // commands run in layers (LayerCapture) and those the tracker follows
    return changeTracker.runningInBackground() + LayerCapture.runningInBackground(LayerCapture.layersRoot(this));
  }

  /** Opens (creating if needed) the store of {@code projectDir} under the user's Waymark home. */
  public static ShadowStore open(Path projectDir) {
    return open(projectDir, WaymarkHome.fromEnvironment(), RetentionPolicy.DEFAULT);
  }

  public static ShadowStore open(Path projectDir, WaymarkHome home, RetentionPolicy retention) {
    return open(projectDir, home, retention, Clock.systemUTC(), List.of());
  }

  /**
   * As {@link #open(Path, WaymarkHome, RetentionPolicy)}, and files matching {@code exclusions}
   * (.gitignore syntax, from the project root) are left out of what shell commands are checked for.
   */
  public static ShadowStore open(Path projectDir, WaymarkHome home, RetentionPolicy retention, List<String> exclusions) {
    return open(projectDir, home, retention, Clock.systemUTC(), exclusions);
  }

  static ShadowStore open(Path projectDir, WaymarkHome home, RetentionPolicy retention, Clock clock) {
    return open(projectDir, home, retention, clock, List.of());
  }

  static ShadowStore open(Path projectDir, WaymarkHome home, RetentionPolicy retention, Clock clock, List<String> exclusions) {
    Path project = realProject(projectDir);
    Path storeDir = home.projectsDir().resolve(projectId(project));
    if (storeDir.startsWith(project)) {
      throw new CheckpointException("The Waymark home " + home.root() + " lies inside the project " + project
          + "; Waymark never creates files inside a project. Set WAYMARK_HOME elsewhere.");
    }
    try {
      WaymarkHome.createPrivateDirectories(storeDir);
      Path marker = storeDir.resolve("project-path");
      if (!Files.exists(marker)) {
        Files.writeString(marker, project + "\n", StandardCharsets.UTF_8);
      }
      // two processes opening a new project at once must not both create the repository
      ShadowRepository repo = new ProjectLock(storeDir.resolve("store.lock"))
          .run(() -> ShadowRepository.openOrCreate(storeDir.resolve("shadow.git")));
      return new ShadowStore(project, storeDir, repo, retention, clock, List.copyOf(exclusions));
    } catch (IOException e) {
      throw new CheckpointException("Could not open the checkpoint store in " + storeDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Where the store of the project in {@code projectDir} is, or would be: the directory holding its
   * shadow repository and sessions. Creates nothing, so a command that only looks leaves no store behind.
   */
  public static Path location(Path projectDir, WaymarkHome home) {
    return home.projectsDir().resolve(projectId(realProject(projectDir)));
  }

  /** True when the project in {@code projectDir} has a store already; creates nothing. */
  public static boolean exists(Path projectDir, WaymarkHome home) {
    return Files.isDirectory(location(projectDir, home).resolve("shadow.git"));
  }

  private static Path realProject(Path projectDir) {
    Path project;
    try {
      project = projectDir.toRealPath();
    } catch (IOException e) {
      throw new CheckpointException("The project directory " + projectDir + " does not exist or cannot be read.", e);
    }
    if (!Files.isDirectory(project)) {
      throw new CheckpointException("The project path " + projectDir + " is not a directory.");
    }
    return project;
  }

  /** A readable, stable directory name for a canonical project path (see {@link ProjectId}). */
  static String projectId(Path canonicalProject) {
    return ProjectId.of(canonicalProject);
  }

  public Path projectDirectory() {
    return project;
  }

  /** The bare shadow repository: {@code git --git-dir=<this> show <tag>:post/<path>} reads a file. */
  public Path shadowDirectory() {
    return repo.directory();
  }

  /** What opening the store did about a restore that a crash interrupted; empty normally. */
  public List<String> recovered() {
    return recovered;
  }

  /** Starts a tab with a new random id and only its start, {@code #0}. */
  public CheckpointTree newTab() {
    byte[] random = new byte[6];
    new SecureRandom().nextBytes(random);
    return openTab("t" + HexFormat.of().formatHex(random));
  }

  /** Starts an empty tree for {@code tabId}; refused when the store already holds tags of that tab. */
  public CheckpointTree openTab(String tabId) {
    checkTabId(tabId);
    if (!repo.refs(tagPrefix(tabId)).isEmpty()) {
      throw new CheckpointException("Tab " + tabId + " already has checkpoints in this project; "
          + "open it from its session, or delete the tab first.");
    }
    claimTab(tabId);
    return new CheckpointTree(this, tabId).holdingTab();
  }

  /**
   * Rebuilds the tree of a tab from its tags, e.g. after {@code waymark exec} ended: every
   * checkpoint that changed files and those on their paths come back, live at the newest.
   * Conversations are not in the store.
   */
  public CheckpointTree loadTab(String tabId) {
    checkTabId(tabId);
    claimTab(tabId);
    try {
      return loadClaimed(tabId).holdingTab();
    } catch (RuntimeException e) {
      releaseTab(tabId);
      throw e;
    }
  }

  private CheckpointTree loadClaimed(String tabId) {
    String prefix = tagPrefix(tabId);
    List<GraphLoader.StoredCheckpoint> stored = new ArrayList<>();
    Map<Integer, Set<String>> saves = new HashMap<>();
    try {
      for (Ref ref : repo.refs(prefix)) {
        String rest = ref.getName().substring(prefix.length());
        if (rest.matches("\\d+")) {
          stored.add(readCheckpoint(ref.getName(), ref.getObjectId()));
        } else if (rest.startsWith("saved/")) {
          CheckpointManifest manifest = manifest(ref.getObjectId(), ref.getName());
          if (!manifest.tab().equals(tabId)) {
            throw new CheckpointException(ref.getName() + " holds a save of tab " + manifest.tab() + ", not of " + tabId
                + ": the shadow repository " + shadowDirectory() + " was changed by hand or is damaged.");
          }
          saves.computeIfAbsent(manifest.checkpoint(), k -> new TreeSet<>()).add(rest.substring("saved/".length()));
        }
      }
    } catch (IOException e) {
      throw new CheckpointException("Could not read the checkpoints of tab " + tabId + ": " + e.getMessage(), e);
    }
    if (stored.isEmpty() && saves.isEmpty()) {
      throw new CheckpointException("This project has no checkpoints of tab " + tabId + ".");
    }
    CheckpointTree tree = new CheckpointTree(this, tabId, GraphLoader.rebuild(stored, saves, clock.instant()), false);
    List<String> notes = new java.util.ArrayList<>(LayerCapture.recover(tree));
    notes.addAll(changeTracker.recover(tree.history()));
    for (String note : notes) {
      LOG.warn("tab {}: {}", tabId, note);
    }
    return tree;
  }

  /** The manifest of a checkpoint's or a save's commit, read strictly (see {@link CheckpointManifest}). */
  private CheckpointManifest manifest(org.eclipse.jgit.lib.ObjectId commit, String ref) throws IOException {
    byte[] bytes = repo.readAt(commit, "waymark.json");
    if (bytes == null) {
      throw new CheckpointException(ref + " has no waymark.json manifest");
    }
    return CheckpointManifest.parse(bytes, ref);
  }

  private GraphLoader.StoredCheckpoint readCheckpoint(String ref, org.eclipse.jgit.lib.ObjectId commit) throws IOException {
    CheckpointManifest manifest = manifest(commit, ref);
    // a tag is trusted for its number only if its manifest says the same: else the tree would take one checkpoint for another
    if (!ref.equals(tagPrefix(manifest.tab()) + manifest.checkpoint())) {
      throw new CheckpointException(ref + " holds the manifest of " + manifest.tab() + " #" + manifest.checkpoint()
          + ", not of its own checkpoint: the shadow repository " + shadowDirectory() + " was changed by hand or is "
          + "damaged. Point the tag back at its own commit, or delete it (git --git-dir=... tag -d).");
    }
    return GraphLoader.StoredCheckpoint.of(manifest, commit, ref);
  }

  /**
   * A tab brought back from a snapshot, and what could not be.
   *
   * @param recovered checkpoints found under the tab's tags that the snapshot does not know
   *     (Waymark stopped after recording them, before saving the session): their files are back in
   *     the tree, their conversation is not
   * @param shellRecovered what was recorded of shell commands that were running when Waymark stopped
   */
  public record RestoredTab(CheckpointTree tree, List<String> recreatedTags, List<Integer> lostCheckpoints,
      List<Integer> recovered, List<String> shellRecovered) {
    /** Whether the tab was moved to where its last restore left the files: that restore ended after the session was saved. */
    public boolean reconciled() {
      return tree.reconciled();
    }
  }

  /**
   * Brings a tab back from a snapshot (a saved session): every tag that is missing is recreated
   * from its recorded commit when the commit is still in the store; a checkpoint whose commit is
   * gone is listed in {@code lostCheckpoints} and no restore may cross it (its changes are kept
   * in the tree only so that the session goes on naming them). A tag newer
   * than the snapshot (a checkpoint recorded, or a running one kept, after the session was saved)
   * wins over it, so that nothing recorded before a crash is left out.
   */
  public RestoredTab restoreTab(CheckpointTree.Snapshot snapshot) {
    return restoreTab(snapshot, true);
  }

  /**
   * {@link #restoreTab(CheckpointTree.Snapshot)} for reading only (listing, diffs), which another
   * process may do while it holds the tab: no lock is taken and nothing in the project is
   * touched. The tree must not be used to change anything.
   */
  public RestoredTab readTab(CheckpointTree.Snapshot snapshot) {
    return restoreTab(snapshot, false);
  }

  private RestoredTab restoreTab(CheckpointTree.Snapshot snapshot, boolean claim) {
    checkTabId(snapshot.tabId());
    if (!claim) {
      return restoreClaimed(snapshot, false);
    }
    claimTab(snapshot.tabId());
    try {
      RestoredTab restored = restoreClaimed(snapshot, true);
      restored.tree().holdingTab();
      return restored;
    } catch (RuntimeException e) {
      releaseTab(snapshot.tabId());
      throw e;
    }
  }

  private RestoredTab restoreClaimed(CheckpointTree.Snapshot snapshot, boolean claim) {
    Map<Integer, Checkpoint> known = new HashMap<>();
    for (Checkpoint cp : snapshot.checkpoints()) {
      known.put(cp.number(), cp);
    }
    List<GraphLoader.StoredCheckpoint> newer = new ArrayList<>();
    String prefix = tagPrefix(snapshot.tabId());
    try {
      for (Ref ref : repo.refs(prefix)) {
        String rest = ref.getName().substring(prefix.length());
        if (!rest.matches("\\d{1,9}")) {
          continue;
        }
        Checkpoint cp = known.get(Integer.parseInt(rest));
        boolean unknown = cp == null;
        boolean movedOn = cp != null && cp.status() == CheckpointStatus.RUNNING
            && !ref.getObjectId().equals(cp.commit().orElse(null));
        if (unknown || movedOn) {
          newer.add(readCheckpoint(ref.getName(), ref.getObjectId()));
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not read the tags of tab {}; the session is loaded as saved", snapshot.tabId(), e);
      newer.clear();
    }
    Set<Integer> adopted = new TreeSet<>();
    newer.forEach(n -> adopted.add(n.number()));
    List<String> recreated = new ArrayList<>();
    List<Integer> lost = new ArrayList<>();
    for (Checkpoint cp : snapshot.checkpoints()) {
      if (cp.commit().isEmpty() || adopted.contains(cp.number())) {
        continue;
      }
      org.eclipse.jgit.lib.ObjectId commit = cp.commit().get();
      if (!repo.has(commit)) {
        lost.add(cp.number());
        continue;
      }
      if (cp.tag().isPresent() && !commit.equals(repo.resolve(cp.tag().get()))) {
        repo.setRef(cp.tag().get(), commit);
        recreated.add(cp.tag().get());
      }
    }
    for (var save : snapshot.saves().entrySet()) {
      String ref = tagPrefix(snapshot.tabId()) + "saved/" + save.getKey();
      if (repo.has(save.getValue()) && !save.getValue().equals(repo.resolve(ref))) {
        repo.setRef(ref, save.getValue());
        recreated.add(ref);
      }
    }
    newer.sort(Comparator.comparingInt(GraphLoader.StoredCheckpoint::number));
    GraphLoader.Loaded loaded = GraphLoader.restore(snapshot, Set.copyOf(lost), newer, lastMove(snapshot.tabId()),
        clock.instant());
    CheckpointTree tree = new CheckpointTree(this, snapshot.tabId(), loaded.graph(), loaded.reconciled());
    List<String> shellRecovered = List.of();
    if (claim) {
      removeWriteLeftovers(tree); // only the tab's holder: another may be writing one now
      // likewise: they record into the tab's checkpoints; a layer left by a killed Waymark first
      List<String> notes = new java.util.ArrayList<>(LayerCapture.recover(tree));
      notes.addAll(changeTracker.recover(tree.history()));
      shellRecovered = List.copyOf(notes);
    }
    return new RestoredTab(tree, recreated, lost, List.copyOf(adopted), shellRecovered);
  }

  /**
   * Deletes the temporary file a {@code write_file} killed before its rename left beside a path
   * the tab recorded (each change is recorded before its file is written, so every such path is
   * in the tree). One {@code lstat} per recorded path.
   */
  private void removeWriteLeftovers(CheckpointTree tree) {
    Set<String> paths = new TreeSet<>();
    for (Checkpoint cp : tree.checkpoints()) {
      cp.changes().forEach(change -> paths.add(change.path()));
    }
    for (String path : paths) {
      Path target = workTree.resolve(path);
      Path temp = TempNames.beside(target, WRITE_TEMP_SUFFIX);
      try {
        workTree.refuseLinkedParent(path); // never delete through a link
        if (Files.isRegularFile(temp, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          Files.delete(temp);
          LOG.info("removed {}, left by a write that was cut short", temp);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not remove {}, left by a write that was cut short", temp, e);
      }
    }
  }

  /** The ids of the tabs that hold tags in this store. */
  public Set<String> tabIds() {
    Set<String> ids = new TreeSet<>();
    for (Ref ref : repo.refs(TAG_ROOT)) {
      String rest = ref.getName().substring(TAG_ROOT.length());
      int slash = rest.indexOf('/');
      if (slash > 0) {
        ids.add(rest.substring(0, slash));
      }
    }
    return ids;
  }

  /** Deletes every tag of {@code tabId} and nothing else; gc reclaims the space later. See {@link #deleteTabs}. */
  public void deleteTab(String tabId) {
    deleteTabs(List.of(tabId));
  }

  /**
   * Deletes every tag of each of {@code tabIds}, or none: a tab that a tree of this store or
   * another process holds is in use, and then nothing is deleted ({@link CheckpointException}).
   * gc reclaims the space later.
   */
  public void deleteTabs(java.util.Collection<String> tabIds) {
    tabIds.forEach(ShadowStore::checkTabId);
    List<String> claimed = new ArrayList<>();
    try {
      for (String tabId : tabIds) {
        synchronized (tabLocks) {
          if (tabLocks.containsKey(tabId)) {
            throw tabInUse(tabId, ProcessHandle.current().pid());
          }
        }
        claimTab(tabId);
        claimed.add(tabId);
      }
      List<String> names = new ArrayList<>();
      for (String tabId : tabIds) {
        for (Ref ref : repo.refs(tagPrefix(tabId))) {
          names.add(ref.getName());
        }
      }
      repo.deleteRefs(names);
    } finally {
      claimed.forEach(this::releaseTab);
    }
  }

  /** Packs refs and objects now, dropping unreachable objects older than two weeks. */
  public void collectGarbage() {
    repo.gc(clock.instant().minus(java.time.Duration.ofDays(14)));
    // The tracker's blobs are unreachable until a turn records them: gc may have dropped some.
    changeTracker.forget();
  }

  /**
   * Takes, in the background, the scan of the project that the first shell command would
   * otherwise wait for: later, file notifications keep it up to date, so a command costs what it
   * changes. Files larger than {@code maxFileSize} bytes are not kept, as for the commands.
   */
  public java.util.concurrent.CompletableFuture<Void> prepareShellCapture(long maxFileSize) {
    java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
    Thread prepare = new Thread(() -> {
      try {
        changeTracker.prepare(maxFileSize);
      } catch (RuntimeException e) {
        LOG.info("the scan ahead of shell commands failed; the first command scans instead", e);
      } finally {
        done.complete(null);
      }
    }, "waymark-shell-prepare");
    prepare.setDaemon(true);
    prepare.start();
    return done;
  }

  public static String tagPrefix(String tabId) {
    return TAG_ROOT + tabId + "/";
  }

  private static void checkTabId(String tabId) {
    if (tabId == null || !TAB_ID.matcher(tabId).matches()) {
      throw new CheckpointException("Not a valid tab id: \"" + tabId + "\" (letters, digits, - and _ only)");
    }
  }

  /** See {@link Turn#commandSlot}. */
  CommandSlot commandSlot() {
    return changeTracker().commandSlot();
  }

  ShadowRepository repo() {
    return repo;
  }

  WorkTree workTree() {
    return workTree;
  }

  /** The project's stat cache for shell commands; one per store, shared by its tabs. */
  ShellChangeTracker changeTracker() {
    return changeTracker;
  }

  ProjectLock lock() {
    return lock;
  }

  Clock clock() {
    return clock;
  }

  RetentionPolicy retention() {
    return retention;
  }

  private volatile Consumer<String> restoreWriteHook = path -> {};

  /** Lets a test act at the exact moment a restore is about to write {@code path}: no file system offers that hook. */
  void onRestoreWrite(Consumer<String> hook) {
    restoreWriteHook = hook;
  }

  void beforeRestoreWrite(String path) {
    restoreWriteHook.accept(path);
  }

  Path journalFile() {
    return storeDir.resolve("restore-journal.json");
  }

  /** Called after each checkpoint commit (see {@link Maintenance#checkpointWritten}). */
  void checkpointWritten() {
    maintenance.checkpointWritten();
  }

  /** For tests: how long the store must be idle before it packs. */
  void maintenanceQuietPeriod(java.time.Duration quiet) {
    maintenance.quietPeriod(quiet);
  }

  @Override
  public void close() {
    maintenance.close();
    changeTracker.stopScanAhead();
    LayerCapture.stopAll(LayerCapture.layersRoot(this));
    changeTracker.close();
    workTree.close();
    synchronized (tabLocks) {
      tabLocks.values().forEach(ShadowStore::releaseTabLock);
      tabLocks.clear();
      tabHolders.clear();
    }
    repo.close();
  }

  // --------------------------------------------------------------------------- tab locks

  /** Lock files held by any store of this process, so that two stores of one process exclude each other too. */
  private static final Set<Path> CLAIMED = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final Map<String, TabLock> tabLocks = new HashMap<>();

  private record TabLock(Path file, java.nio.channels.FileChannel channel, java.nio.channels.FileLock lock) {}

  /** How many trees of this store hold each tab: its lock goes when the last one is released. */
  private final Map<String, Integer> tabHolders = new HashMap<>();

  /**
   * Makes this store the only one, in any process, that acts on {@code tabId} until its trees of
   * the tab are released ({@link #releaseTab}) or it closes: an OS file lock on
   * {@code tabs/<tab>.lock}, which the system drops when the process dies (a {@code kill -9}
   * leaves nothing stuck). The file names the holder's process id for the message the next one gets.
   */
  private void claimTab(String tabId) {
    synchronized (tabLocks) {
      if (tabLocks.containsKey(tabId)) {
        tabHolders.merge(tabId, 1, Integer::sum);
        return;
      }
      Path file = storeDir.resolve("tabs").resolve(tabId + ".lock");
      if (!CLAIMED.add(file)) {
        throw tabInUse(tabId, ProcessHandle.current().pid());
      }
      java.nio.channels.FileChannel channel = null;
      try {
        WaymarkHome.createPrivateDirectories(file.getParent());
        channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
        java.nio.channels.FileLock lock = channel.tryLock();
        if (lock == null) {
          long holder = -1;
          try {
            holder = Long.parseLong(Files.readString(file).strip());
          } catch (IOException | NumberFormatException unknown) {
            // the holder wrote nothing yet
          }
          throw tabInUse(tabId, holder);
        }
        channel.truncate(0);
        channel.write(java.nio.ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        tabLocks.put(tabId, new TabLock(file, channel, lock));
        tabHolders.put(tabId, 1);
      } catch (IOException | RuntimeException e) {
        CLAIMED.remove(file);
        if (channel != null) {
          try {
            channel.close();
          } catch (IOException ignored) {
            // nothing held
          }
        }
        if (e instanceof CheckpointException ce) {
          throw ce;
        }
        throw new CheckpointException("Could not lock tab " + tabId + " (" + file + "): " + e.getMessage(), e);
      }
    }
  }

  /** Keeps where the restore of {@code tabId} left it (see {@link TabMoves}). */
  void recordMove(String tabId, TabPosition position) {
    tabMoves.record(tabId, position);
  }

  Optional<TabPosition> lastMove(String tabId) {
    return tabMoves.last(tabId);
  }

  /**
   * Gives up one tree's hold on {@code tabId} (see {@link CheckpointTree#release()}); when no tree
   * of this store holds it any more, another store or process may act on it.
   */
  public void releaseTab(String tabId) {
    synchronized (tabLocks) {
      int left = tabHolders.getOrDefault(tabId, 1) - 1;
      if (left > 0) {
        tabHolders.put(tabId, left);
        return;
      }
      tabHolders.remove(tabId);
      TabLock held = tabLocks.remove(tabId);
      if (held != null) {
        releaseTabLock(held);
      }
    }
  }

  private static CheckpointException tabInUse(String tabId, long pid) {
    return new CheckpointException("Tab " + tabId + " is in use by process " + (pid < 0 ? "(unknown)" : pid)
        + "; wait until it is done with the tab, or close it there.");
  }

  private static void releaseTabLock(TabLock held) {
    try {
      held.lock().release();
      held.channel().close();
    } catch (IOException e) {
      LOG.warn("could not release {}", held.file(), e);
    } finally {
      CLAIMED.remove(held.file());
    }
  }
}
