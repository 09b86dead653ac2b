package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.project.IgnoreRules;

import dev.waymark.core.checkpoint.shell.Scan.Seen;
import dev.waymark.core.checkpoint.shell.Scan.Tree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a killed Waymark's shell commands changed, recorded when their tab is next opened: the
 * jobs it left running are stopped, and each command its {@link ShellJournal} names is compared
 * with the stat cache as it was saved before the command, under the ignore rules of its start.
 */
final class ShellRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(ShellRecovery.class);

  private final ShellJournal journal;
  private final Path cacheFile;
  private final CommandJobs jobs;

  ShellRecovery(ShellJournal journal, Path cacheFile, CommandJobs jobs) {
    this.journal = journal;
    this.cacheFile = cacheFile;
    this.jobs = jobs;
  }

  /**
   * Records into checkpoint {@code #n} of {@code tree} what a command changed that a killed process
   * could not record: for each journal another process left in the tab (the caller holds the tab,
   * so that process no longer runs a command in it, even if its id still shows), the project is compared
   * with the stat cache as saved before the command, under the ignore rules of its start.
   */
  List<String> recover(TabHistory tree, Supplier<StatCache> cache,
      BiFunction<TabRecords, Scan, WorkTreeChanges> record) {
    List<String> report = new ArrayList<>();
    jobs.stopJobsLeftBehind(tree.tabId()).ifPresent(report::add);
    for (var orphan : journal.leftInTab(tree.tabId())) { // called by the tab's holder only
      ShellJournal.Entry entry = orphan.getValue();
      // the command may outlive the Waymark that ran it: stopped first, so that what it changes is all recorded now
      if (CommandMark.findable() && entry.commandMark().map(m -> m.stopAll(3_000)).orElse(0) > 0) {
        report.add("the shell command of checkpoint #" + entry.checkpoint()
            + " was still running after Waymark stopped; it was stopped, and what it changed is recorded below");
      }
      try {
        StatCache current = cache.get();
        Optional<StatCache> baseline = current.generation() == entry.cacheGeneration() ? Optional.of(current)
            : StatCache.loadAt(cacheFile, entry.cacheGeneration()); // another process saved the cache since
        if (baseline.isEmpty()) {
          // the baseline was lost: comparing with another could take every file for new
          report.add("the changes of a shell command of checkpoint #" + entry.checkpoint()
              + " could not be recovered: the project's stat cache changed since it started");
          ShellJournal.remove(orphan.getKey());
          continue;
        }
        Map<String, Seen> files = new HashMap<>();
        baseline.get().entries().forEach((path, e) -> files.put(path, new Seen(e.stat(), e.version(), e.source(), null)));
        Scan before = new Scan(entry.startMillis(), entry.maxFileSize(), PathTable.of(files),
            Tree.unwalked(IgnoreRules.fixed(entry.ignoreFiles())), false, Set.of());
        String where;
        WorkTreeChanges changes;
        if (tree.has(entry.checkpoint())) {
          changes = tree.amend(entry.checkpoint(), turn -> record.apply(turn, before));
          where = "checkpoint #" + entry.checkpoint();
        } else {
          // stopped before the checkpoint was saved anywhere: a checkpoint of their own keeps them undoable
          int[] number = {0};
          changes = tree.inNewCancelled(turn -> {
            number[0] = turn.number();
            return record.apply(turn, before);
          });
          where = "new checkpoint #" + number[0];
        }
        if (!changes.recorded().isEmpty()) {
          report.add(where + " now holds " + Counted.of(changes.recorded().size(), "file change")
              + " of a shell command that was running when Waymark stopped; they can be undone");
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
}
