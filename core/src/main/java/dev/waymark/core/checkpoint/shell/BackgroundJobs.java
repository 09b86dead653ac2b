package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.shell.ShellChangeTracker.Scan;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The processes each tab's shell commands left running, in one place: what the tab last recorded
 * of the project for them, the marks that find them again, and the marks kept in the
 * {@link ShellJournal} so that the tab's next holder can stop them after a crash. Called under the
 * tracker's lock, except {@link #running}, which reads a volatile copy.
 */
final class BackgroundJobs {
  private final ShellJournal journal;
  private final Map<String, Background> background = new HashMap<>();

  BackgroundJobs(ShellJournal journal) {
    this.journal = journal;
  }

  /**
   * Processes a tab's commands left running, the marks of those commands, and the tree as the
   * tab last recorded it.
   */
  record Background(TabHistory tree, Scan after, List<ProcessHandle> processes, Set<String> marks) {
    Background following(Scan scan, List<ProcessHandle> alive) {
      return new Background(tree, scan, alive, marks);
    }
  }

  /** Keeps {@code left} as the tab's background, and its marks in the store while any of its processes may run. */
  void follow(String tab, Background left) {
    if (left == null || left.processes().isEmpty()) {
      background.remove(tab);
      if (keptMarks.remove(tab) != null) {
        journal.clearJobs(tab);
      }
    } else {
      background.put(tab, left);
      if (!left.marks().equals(keptMarks.get(tab))) { // not rewritten at every scan while a job runs
        journal.writeJobs(tab, left.marks());
        keptMarks.put(tab, left.marks());
      }
    }
    followedNow();
  }

  /** The marks each tab's jobs file holds. */
  private final Map<String, Set<String>> keptMarks = new HashMap<>();

  /** Every tab's followed processes, readable without waiting for a scan to end. */
  private volatile List<ProcessHandle> followed = List.of();

  void followedNow() {
    followed = background.values().stream().flatMap(b -> b.processes().stream()).toList();
  }

  /** How many processes that commands left running still run, with what they started since (what quitting would stop). */
  int running() {
    Set<Long> running = new HashSet<>();
    for (ProcessHandle process : followed) {
      if (process.isAlive()) {
        running.add(process.pid());
        process.descendants().forEach(child -> running.add(child.pid()));
      }
    }
    return running.size();
  }

  Background get(String tab) {
    return background.get(tab);
  }

  /** Takes the tab's background out of the follow list; {@link #followedNow} or {@link #follow} updates what is followed. */
  Background remove(String tab) {
    return background.remove(tab);
  }

  List<Background> all() {
    return List.copyOf(background.values());
  }

  /** The tab's processes are stopped: its jobs file goes. */
  void forgetMarks(String tab) {
    keptMarks.remove(tab);
    journal.clearJobs(tab);
  }

  /**
   * Stops what the tab's commands left running in a Waymark that stopped without stopping them
   * (killed): their marks were kept in the store while they could run. What they changed after
   * that Waymark stopped is on disk and in no checkpoint, like an edit made between two runs.
   */
  Optional<String> stopJobsLeftBehind(String tab) {
    if (background.containsKey(tab)) {
      return Optional.empty(); // this process follows them
    }
    Set<String> marks = journal.takeJobs(tab);
    if (marks.isEmpty() || !CommandMark.findable()) {
      return Optional.empty();
    }
    int stopped = 0;
    for (String mark : marks) {
      stopped += CommandMark.parse(mark).map(m -> m.stopAll(3_000)).orElse(0);
    }
    return stopped == 0 ? Optional.empty() : Optional.of(stopped + " process(es) that shell commands of this tab left "
        + "running were still running after Waymark stopped; they were stopped. What they changed since is on disk, "
        + "in no checkpoint");
  }
}
