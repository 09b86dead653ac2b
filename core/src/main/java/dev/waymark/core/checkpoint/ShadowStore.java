package dev.waymark.core.checkpoint;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.restore.RestoreRecovery;
import dev.waymark.core.checkpoint.restore.SetAside;
import dev.waymark.core.checkpoint.restore.TextMerge;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.shell.Captures;
import dev.waymark.core.checkpoint.shell.CommandJobs;
import dev.waymark.core.checkpoint.shell.LayerCapture;
import dev.waymark.core.checkpoint.shell.ProjectView;
import dev.waymark.core.checkpoint.shell.ShellChangeTracker;
import dev.waymark.core.checkpoint.shell.WriteLog;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import dev.waymark.core.checkpoint.store.Maintenance;
import dev.waymark.core.checkpoint.store.ProjectId;
import dev.waymark.core.checkpoint.store.ProjectLock;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.checkpoint.store.TabLocks;
import dev.waymark.core.checkpoint.store.TabMoves;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
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
  private static final Pattern TAB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

  private final StoreParts parts;
  private final TabLoader loader;
  private final List<String> recovered;
  private volatile Consumer<String> restoreWriteHook = path -> {};

  private ShadowStore(Path project, Path storeDir, ShadowRepository repo, RetentionPolicy retention, Clock clock,
      List<String> exclusions) {
    DirectoryModes directoryModes = new DirectoryModes(storeDir.resolve("directory-modes.json"));
    WorkTree workTree = new WorkTree(project, openSetAside(storeDir), directoryModes);
    ProjectLock lock = new ProjectLock(storeDir.resolve("store.lock"));
    WriteLog writeLog = new WriteLog(storeDir.resolve("writes.log"));
    CommandJobs jobs = new CommandJobs(ShellChangeTracker.journalOf(storeDir));
    ShellChangeTracker tracker = new ShellChangeTracker(project, repo, exclusions, storeDir, directoryModes, writeLog, jobs);
    // the layers live beside the shadow repository, out of every sandbox's reach; they ask the store's view of the
    // project (which the comparison capture keeps), never the comparison capture itself
    ProjectView view = tracker;
    LayerCapture layers = new LayerCapture(project, storeDir.resolve("layers"), repo, view, writeLog, TextMerge::merge, jobs);
    this.parts = new StoreParts(project, repo, workTree, lock, clock, retention, storeDir.resolve("restore-journal.json"),
        writeLog, tracker, layers, jobs, new Captures(layers, tracker, jobs), new Maintenance(repo),
        new TabMoves(storeDir.resolve("tabs")), new TabLocks(storeDir.resolve("tabs")),
        path -> restoreWriteHook.accept(path));
    this.loader = new TabLoader(parts);
    this.recovered = lock.run(() -> RestoreRecovery.rollBack(parts.journalFile(), workTree, repo, clock));
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
    return parts.captures().runningInBackground();
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
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "The Waymark home " + home.root() + " lies inside the project " + project
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
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not open the checkpoint store in " + storeDir + ": " + e.getMessage(), e);
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
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "The project directory " + projectDir + " does not exist or cannot be read.", e);
    }
    if (!Files.isDirectory(project)) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "The project path " + projectDir + " is not a directory.");
    }
    return project;
  }

  /** A readable, stable directory name for a canonical project path (see {@link ProjectId}). */
  static String projectId(Path canonicalProject) {
    return ProjectId.of(canonicalProject);
  }

  public Path projectDirectory() {
    return parts.project();
  }

  /** The bare shadow repository: {@code git --git-dir=<this> show <tag>:post/<path>} reads a file. */
  public Path shadowDirectory() {
    return parts.shadowDirectory();
  }

  /** The bytes of a blob a checkpoint names (a bisect reads them off the tab's thread; JGit's reads are thread-safe). */
  public byte[] readBlob(ObjectId blob) throws IOException {
    return parts.repo().read(blob);
  }

  /** A directory of this project's store for throw-away work ({@code name}), out of every sandbox's reach. */
  public Path scratchDirectory(String name) {
    return parts.shadowDirectory().resolveSibling(name);
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

  /**
   * Starts an isolated tab: its files are a view of the project of its own (an upper directory
   * over the live project), its commands run in the sandbox with the view mounted at the project's
   * path, and the project does not change until it lands. Refused, saying why, where commands run
   * by {@code bwrap} (empty: none) cannot have a copy-on-write layer here.
   */
  public CheckpointTree newIsolatedTab(Optional<Path> bwrap) {
    Optional<String> unavailable = parts.layers().unavailable(bwrap);
    if (unavailable.isPresent()) {
      throw new CheckpointException(CheckpointException.Kind.UNSUPPORTED, "Isolated tabs need copy-on-write layers, which are not available here ("
          + unavailable.get() + "); open a normal tab instead.");
    }
    byte[] random = new byte[6];
    new SecureRandom().nextBytes(random);
    String tabId = "t" + HexFormat.of().formatHex(random);
    parts.layers().views().open(tabId);
    return openTab(tabId);
  }

  /** Starts an empty tree for {@code tabId}; refused when the store already holds tags of that tab. */
  public CheckpointTree openTab(String tabId) {
    checkTabId(tabId);
    if (!parts.repo().refs(TagNames.tabPrefix(tabId)).isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Tab " + tabId + " already has checkpoints in this project; "
          + "open it from its session, or delete the tab first.");
    }
    parts.tabLocks().claim(tabId);
    return new CheckpointTree(parts, tabId).holdingTab();
  }

  /**
   * Rebuilds the tree of a tab from its tags, e.g. after {@code waymark exec} ended: every
   * checkpoint that changed files and those on their paths come back, live at the newest.
   * Conversations are not in the store.
   */
  public CheckpointTree loadTab(String tabId) {
    checkTabId(tabId);
    parts.tabLocks().claim(tabId);
    try {
      return loader.load(tabId).holdingTab();
    } catch (RuntimeException e) {
      releaseTab(tabId);
      throw e;
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
  public RestoredTab restoreTab(TreeSnapshot snapshot) {
    return restoreTab(snapshot, true);
  }

  /**
   * {@link #restoreTab(TreeSnapshot)} for reading only (listing, diffs), which another
   * process may do while it holds the tab: no lock is taken and nothing in the project is
   * touched. The tree must not be used to change anything.
   */
  public RestoredTab readTab(TreeSnapshot snapshot) {
    return restoreTab(snapshot, false);
  }

  private RestoredTab restoreTab(TreeSnapshot snapshot, boolean claim) {
    checkTabId(snapshot.tabId());
    if (!claim) {
      return loader.restore(snapshot, false);
    }
    parts.tabLocks().claim(snapshot.tabId());
    try {
      RestoredTab restored = loader.restore(snapshot, true);
      restored.tree().holdingTab();
      return restored;
    } catch (RuntimeException e) {
      releaseTab(snapshot.tabId());
      throw e;
    }
  }

  /** The process that holds {@code tabId} if another one does (-1: it has not said which); see {@link TabCopies}. */
  public OptionalLong heldElsewhere(String tabId) {
    checkTabId(tabId);
    return parts.tabLocks().heldElsewhere(tabId);
  }

  /** The ids of the tabs that hold tags in this store. */
  public Set<String> tabIds() {
    Set<String> ids = new TreeSet<>();
    for (Ref ref : parts.repo().refs(TagNames.ROOT)) {
      String rest = ref.getName().substring(TagNames.ROOT.length());
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
  public void deleteTabs(Collection<String> tabIds) {
    tabIds.forEach(ShadowStore::checkTabId);
    List<String> claimed = new ArrayList<>();
    try {
      for (String tabId : tabIds) {
        parts.tabLocks().claimUnheld(tabId);
        claimed.add(tabId);
      }
      List<String> names = new ArrayList<>();
      for (String tabId : tabIds) {
        for (Ref ref : parts.repo().refs(TagNames.tabPrefix(tabId))) {
          names.add(ref.getName());
        }
      }
      parts.repo().deleteRefs(names);
    } finally {
      claimed.forEach(this::releaseTab);
    }
  }

  /** Packs refs and objects now, dropping unreachable objects older than two weeks. */
  public void collectGarbage() {
    parts.repo().gc(parts.clock().instant().minus(Duration.ofDays(14)));
    // The tracker's blobs are unreachable until a turn records them: gc may have dropped some.
    parts.changeTracker().forget();
  }

  /**
   * Takes, in the background, the scan of the project that the first command captured by comparison
   * would otherwise wait for: later, file notifications keep it up to date, so such a command costs
   * what it changes. Files larger than {@code maxFileSize} bytes are not kept, as for the commands.
   * Nothing is walked when no such command can come: shell commands run by {@code bwrap} (empty: not
   * sandboxed) in copy-on-write layers, and no MCP server is configured ({@code mcpConfigured}), whose
   * calls are captured by comparison. The layer probe runs on the background thread too, so the caller
   * (the interface's first frame) never waits for it.
   */
  public CompletableFuture<Void> prepareShellCapture(long maxFileSize, Optional<Path> bwrap,
      boolean mcpConfigured) {
    return prepareInBackground(maxFileSize, () -> mcpConfigured || parts.layers().unavailable(bwrap).isPresent());
  }

  /** Takes the comparison capture's scan in the background whatever the commands' capture (tests, benches). */
  public CompletableFuture<Void> prepareShellCapture(long maxFileSize) {
    return prepareInBackground(maxFileSize, () -> true);
  }

  /** Whether a prepare still decides if a scan is needed (probing for layers); done when none does. */
  private volatile CompletableFuture<Void> deciding =
      CompletableFuture.completedFuture(null);

  private CompletableFuture<Void> prepareInBackground(long maxFileSize,
      BooleanSupplier needed) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> decided = new CompletableFuture<>();
    deciding = decided;
    Thread thread = new Thread(() -> {
      try {
        boolean scan;
        try {
          scan = needed.getAsBoolean();
        } finally {
          decided.complete(null);
        }
        if (scan) {
          parts.changeTracker().prepare(maxFileSize);
        }
      } catch (RuntimeException e) {
        LOG.info("the scan ahead of shell commands failed; the first command scans instead", e);
      } finally {
        done.complete(null);
      }
    }, "waymark-shell-prepare");
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /**
   * Why this project's shell commands, when the sandbox runs them with {@code bwrap} (empty: they
   * are not sandboxed), cannot each have a copy-on-write layer and are found by comparing the
   * project before and after; empty when they each have one ({@code /status} words it).
   */
  public Optional<String> noLayer(Optional<Path> bwrap) {
    return parts.layers().unavailable(bwrap);
  }

  private static void checkTabId(String tabId) {
    if (tabId == null || !TAB_ID.matcher(tabId).matches()) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Not a valid tab id: \"" + tabId + "\" (letters, digits, - and _ only)");
    }
  }

  StoreParts parts() {
    return parts;
  }

  // For tests, which reach the parts through the store they opened.

  ShadowRepository repo() {
    return parts.repo();
  }

  WorkTree workTree() {
    return parts.workTree();
  }

  ShellChangeTracker changeTracker() {
    return parts.changeTracker();
  }

  Path journalFile() {
    return parts.journalFile();
  }

  /** Lets a test act at the exact moment a restore is about to write {@code path}: no file system offers that hook. */
  void onRestoreWrite(Consumer<String> hook) {
    restoreWriteHook = hook;
  }

  /** For tests: how long the store must be idle before it packs. */
  void maintenanceQuietPeriod(Duration quiet) {
    parts.maintenance().quietPeriod(quiet);
  }

  @Override
  public void close() {
    parts.maintenance().close();
    try {
      // the layer probe writes in the store: it ends before the store does (a scan it started is stopped below)
      deciding.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("the layer probe did not end before the store closed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    parts.captures().close();
    parts.workTree().close();
    parts.tabLocks().releaseAll();
    parts.repo().close();
  }

  /**
   * Gives up one tree's hold on {@code tabId} (see {@link CheckpointTree#release()}); when no tree
   * of this store holds it any more, another store or process may act on it.
   */
  public void releaseTab(String tabId) {
    parts.tabLocks().release(tabId);
  }
}
