package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.restore.RestoreRecovery;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.shell.Captures;
import dev.waymark.core.checkpoint.shell.CommandJobs;
import dev.waymark.core.checkpoint.shell.LayerCapture;
import dev.waymark.core.checkpoint.shell.ShellChangeTracker;
import dev.waymark.core.checkpoint.shell.WriteLog;
import dev.waymark.core.checkpoint.store.Maintenance;
import dev.waymark.core.checkpoint.store.ProjectLock;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.checkpoint.store.TabLocks;
import dev.waymark.core.checkpoint.store.TabMoves;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What one project's store is made of, wired once by {@link ShadowStore#open} and handed to the
 * classes that work with it (the trees, their recorders, writers and diffs, the tab loader), so
 * that none of them reaches through the store for another part.
 *
 * @param project the project directory, real path
 * @param repo the shadow repository, the only writer of git objects and refs
 * @param workTree the project's files as a restore reads and writes them
 * @param lock the project lock a restore holds
 * @param journalFile where a restore journals what it is about to write
 * @param writeLog what Waymark's tools and commands wrote, shared by both captures and the recorders
 * @param changeTracker how a shell command's changes are found by observation; one per store
 * @param layers how a sandboxed command's changes are found in a layer of its own; one per store
 * @param jobs what commands of either capture left running, followed in one place
 * @param captures both captures, for the facade's calls at each point of a command's or tab's life
 * @param maintenance packs the repository when it is quiet
 * @param tabMoves where each tab's last restore left it
 * @param tabLocks which tabs this store acts on
 * @param beforeRestoreWrite called just before a restore writes a path (a test's hook)
 */
record StoreParts(Path project, ShadowRepository repo, WorkTree workTree, ProjectLock lock, Clock clock,
    RetentionPolicy retention, Path journalFile, WriteLog writeLog, ShellChangeTracker changeTracker, LayerCapture layers, CommandJobs jobs, Captures captures, Maintenance maintenance,
    TabMoves tabMoves, TabLocks tabLocks, Consumer<String> beforeRestoreWrite) {

  /** Where the isolated tabs' views of this project are kept: beside the shadow repository, out of every sandbox's reach. */
  Path viewsRoot() {
    return repo.directory().resolveSibling("views");
  }

  /** Where the view of {@code tabId} is, whether or not it is isolated. */
  Path viewDirectory(String tabId) {
    return viewsRoot().resolve(tabId);
  }

  /**
   * The parts {@code tabId}'s tree works with: these, or for an isolated tab (one with a view) the
   * same with its files read and written in its view, and a restore journal of its own (a restore
   * a kill interrupted is rolled back here, in the view).
   */
  StoreParts forTab(String tabId) {
    Path viewDir = viewDirectory(tabId);
    if (layers.views().endedByALand(tabId, viewDir)) {
      return this; // a land a kill interrupted: the tab is a normal one, and the land is finished as it is opened
    }
    Optional<WorkTree> inView = workTree.forView(viewDir);
    if (inView.isEmpty()) {
      return this;
    }
    Path journal = viewDir.resolve("restore-journal.json");
    if (Files.exists(journal)) {
      lock.run(() -> RestoreRecovery.rollBack(journal, inView.get(), repo, clock));
    }
    return new StoreParts(project, repo, inView.get(), lock, clock, retention, journal, writeLog, changeTracker, layers,
        jobs, captures, maintenance, tabMoves, tabLocks, beforeRestoreWrite);
  }

  /** Whether these parts are an isolated tab's: its files are its view's. */
  Optional<Path> view() {
    return workTree.viewDirectory();
  }

  /** The bare shadow repository's directory. */
  Path shadowDirectory() {
    return repo.directory();
  }
}
