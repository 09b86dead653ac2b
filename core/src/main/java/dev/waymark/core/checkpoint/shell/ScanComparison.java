package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.shell.Scan.Excluded;
import dev.waymark.core.checkpoint.shell.Scan.Seen;
import dev.waymark.core.checkpoint.shell.Scan.Tree;
import dev.waymark.core.checkpoint.shell.Scanner.Compared;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The after side of {@link Scanner}: what a later walk finds changed since an earlier scan. Its
 * own class because it shares nothing with taking a scan but the walks and the cache it is given.
 */
final class ScanComparison {
  private final Path root;
  private final ShadowRepository repo;
  private final TreeWalks walks;

  ScanComparison(Path root, ShadowRepository repo, TreeWalks walks) {
    this.root = root;
    this.repo = repo;
    this.walks = walks;
  }

  /**
   * Walks again under the rules of {@code before} (only what the watch saw touched, when it can
   * say) and lists each file whose content differs from it, as of {@code start}. What a command moved out of a
   * left-out place, a file whose content was not kept, one too big or unreadable is skipped,
   * with why.
   */
  Compared compare(Scan before, StatCache cache, long start) {
    IgnoreRules rules = before.rules().replaying();
    // what the scan before walked, whatever it is now
    walks.keep((path, stat) -> before.files().containsKey(path), () -> before.files().keySet());
    Tree tree = walks.update(before.tree(), rules).orElseGet(() -> walks.walk(rules));
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
      if (now != null && Scan.tooBig(now, before.maxFileSize())) {
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
    return new Compared(tree, pending, skipped, start);
  }
}
