package dev.waymark.core.checkpoint.shell;


import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processes each tab's shell commands left running, in one place: what the tab last recorded
 * of the project for them, the marks that find them again, and the marks kept in the
 * {@link ShellJournal} so that the tab's next holder can stop them after a crash. Called under the
 * tracker's lock, except {@link #running}, which reads a volatile copy. What they changed is
 * recorded at the tab's next scan, before a restore, and when they are stopped.
 */
final class BackgroundJobs {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);

  private final ShellJournal journal;
  private final Capture capture;
  private final Map<String, Background> background = new HashMap<>();

  BackgroundJobs(ShellJournal journal, Capture capture) {
    this.journal = journal;
    this.capture = capture;
  }

  /** What following jobs needs of the capture that started them. */
  interface Capture {
    /** Records in {@code turn} what changed since {@code from} (see {@link ShellChangeTracker#recordChanges}). */
    Recorded record(TabRecords turn, Scan from);

    /** A scan of the project as it is now, for jobs watched again from here. */
    Scan scanNow(long maxFileSize);

    /** Runs {@code action} unless a shell command runs on the project now; returns whether it ran. */
    boolean unlessACommandRuns(Runnable action);
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

  /**
   * Notes that a command of {@code turn}'s tab left processes running: what they change later is
   * recorded at the tab's next scan (its next command, or the end of its turn).
   */
  void leftRunning(TabRecords turn, Scan after, List<ProcessHandle> processes, CommandMark mark) {
    // what earlier commands left and still runs is followed on, with this command's
    Background earlier = get(turn.tabId());
    LinkedHashSet<ProcessHandle> all = new LinkedHashSet<>(processes);
    Set<String> marks = new TreeSet<>();
    if (!processes.isEmpty()) {
      marks.add(mark.encoded());
    }
    if (earlier != null) {
      earlier.processes().stream().filter(ProcessHandle::isAlive).forEach(all::add);
      marks.addAll(earlier.marks());
    }
    if (!all.isEmpty()) {
      follow(turn.tabId(), new Background(turn.history(), after, List.copyOf(all), Set.copyOf(marks)));
    }
  }

  /** Records in {@code turn} what the tab's background processes changed since its last scan. */
  WorkTreeChanges settle(TabRecords turn) {
    Background left = remove(turn.tabId());
    if (left == null) {
      return new WorkTreeChanges(List.of(), List.of());
    }
    Recorded found = capture.record(turn, left.after());
    if (!found.changes().recorded().isEmpty()) {
      turn.persist();
    }
    List<ProcessHandle> alive = left.processes().stream().filter(ProcessHandle::isAlive).toList();
    follow(turn.tabId(), left.following(found.after().get(), alive));
    return found.changes();
  }

  /**
   * Before {@code tree} restores files: what its background processes changed since its last
   * scan is recorded in the checkpoint whose files are on disk (amended), so that the restore's
   * own writes are never taken for theirs and undoing that checkpoint undoes them too. Returns
   * the processes still running, for {@link #watchFromHere}.
   */
  StillRunning recordSoFar(TabHistory tree) {
    Background left = remove(tree.tabId());
    if (left == null) {
      return StillRunning.NONE;
    }
    followedNow();
    int at = tree.filesAt();
    if (at > 0) {
      try {
        if (!capture.unlessACommandRuns(() -> tree.amend(at, turn -> capture.record(turn, left.after()).changes()))) {
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
   * then records what they changed as {@link #recordSoFar} does: nothing they would do later
   * can happen outside a checkpoint.
   */
  void stop(TabHistory tree) {
    Background left = get(tree.tabId());
    if (left == null || left.tree() != tree) {
      return;
    }
    CommandMark.stop(left.processes(), 2_000);
    recordSoFar(tree);
    forgetMarks(tree.tabId());
  }

  /** Background processes of a tab that a restore found running, and the file size limit of their command. */
  record StillRunning(List<ProcessHandle> processes, long maxFileSize, Set<String> marks) {
    static final StillRunning NONE = new StillRunning(List.of(), 0, Set.of());
  }

  /**
   * After {@code tree} restored files: the background processes {@link #recordSoFar} found
   * running are watched again from the restored files, so their later changes are recorded at
   * the tab's next scan, and the restore's writes are not.
   */
  void watchFromHere(TabHistory tree, StillRunning running) {
    List<ProcessHandle> alive = running.processes().stream().filter(ProcessHandle::isAlive).toList();
    if (running == StillRunning.NONE) {
      return;
    }
    follow(tree.tabId(), alive.isEmpty() ? null
        : new Background(tree, capture.scanNow(running.maxFileSize()), alive, running.marks()));
  }

  /** Stops every tab's processes and records what they changed (the store closes). */
  void stopAll() {
    for (Background left : all()) {
      try {
        stop(left.tree());
      } catch (RuntimeException e) {
        LOG.warn("could not stop or record the background processes of tab {}", left.tree().tabId(), e);
      }
    }
  }
}
