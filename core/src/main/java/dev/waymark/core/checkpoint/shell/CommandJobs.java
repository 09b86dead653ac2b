package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processes shell commands left running, for every tab of one store and whichever capture ran
 * the command: one follower with instance state, shared by both captures through the store's wiring.
 * It knows which processes run, stops them, counts them, keeps their marks where the tab's next
 * holder finds them after a crash, and watches for their end; what they changed is recorded by the
 * capture that ran their command, at the points it is handed here:
 * <ul>
 *   <li>a command captured by comparison ({@link Compared}): what its processes changed since the
 *       tab's last scan is found by the tracker's {@link ComparedCapture} at the tab's next scan, as
 *       its turn ends, around a restore, and when they are stopped; the tracker calls under its lock;</li>
 *   <li>a command run in a layer ({@link Layered}): what they wrote in it is applied by copy and
 *       recorded by {@link LayerRecording} at the tab's next command, as its turn ends, before a
 *       restore and once they all ended (the tab is told, see {@link #onLayersEnded}).</li>
 * </ul>
 */
public final class CommandJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommandJobs.class);
  private static final long WATCH_MILLIS = 500;

  private final ShellJournal journal;
  /** By tab, what its comparison-captured commands left running, and the tree as the tab last recorded it. */
  private final Map<String, Compared> compared = new ConcurrentHashMap<>();
  /** The marks each tab's jobs file holds. */
  private final Map<String, Set<String>> keptMarks = new ConcurrentHashMap<>();
  /** By tab, the layers background processes still write in. */
  private final Map<String, List<Layered>> layered = new ConcurrentHashMap<>();
  /** By tab, who is told that a layer's processes all ended. */
  private final Map<String, Runnable> whenEnded = new ConcurrentHashMap<>();
  /** The layers already told of, so that each ending is told once. */
  private final Set<Layer> told = ConcurrentHashMap.newKeySet();
  private boolean watching; // guarded by this
  private ScheduledExecutorService watcher; // made at the first layer followed, ended by close: a store with no jobs has no thread

  public CommandJobs(ShellJournal journal) {
    this.journal = journal;
  }

  /** What following jobs needs of the comparison capture that started them. */
  interface ComparedCapture {
    /** Records in {@code turn} what changed since {@code from} (the tracker's comparison with a scan). */
    Recorded record(TabRecords turn, Scan from);

    /** A scan of the project as it is now, for jobs watched again from here. */
    Scan scanNow(long maxFileSize);

    /** Runs {@code action} unless a shell command runs on the project now; returns whether it ran. */
    boolean unlessACommandRuns(Runnable action);

    /** {@code work} under the capture's lock: its scans and records are not interleaved. */
    <T> T locked(Supplier<T> work);
  }

  /** Processes a tab's compared commands left running, their marks, and the tree as the tab last recorded it. */
  record Compared(TabHistory tree, Scan after, List<ProcessHandle> processes, Set<String> marks, ComparedCapture capture) {
    Compared following(Scan scan, List<ProcessHandle> alive) {
      return new Compared(tree, scan, alive, marks, capture);
    }
  }

  /** A layer whose command left processes writing in it, and what was applied of it so far. */
  record Layered(TabHistory tree, Layer layer, Set<String> mountPoints, long maxFileSize, List<ProcessHandle> processes,
      LayerApply.SoFar soFar, LayerRecording recording) {
    boolean ended() {
      return processes.stream().filter(ProcessHandle::isAlive).allMatch(CommandJobs::sandboxInit)
          && new CommandMark(layer.mark()).processes().stream().allMatch(CommandJobs::sandboxInit);
    }
  }

  /** Background processes of a tab that a restore found running, and the file size limit of their command. */
  record StillRunning(List<ProcessHandle> processes, long maxFileSize, Set<String> marks, ComparedCapture capture) {
    static final StillRunning NONE = new StillRunning(List.of(), 0, Set.of(), null);
  }

  // ---- what both kinds share: counting, stopping, the point around a restore

  /** How many processes commands left running still run, with what they started since (what quitting would stop). */
  public int running() {
    Set<Long> running = new HashSet<>();
    List<ProcessHandle> followed = new ArrayList<>();
    compared.values().forEach(c -> followed.addAll(c.processes()));
    layered.values().forEach(list -> list.forEach(l -> followed.addAll(l.processes())));
    for (ProcessHandle process : followed) {
      if (process.isAlive() && !sandboxInit(process)) {
        running.add(process.pid());
        process.descendants().forEach(child -> running.add(child.pid()));
      }
    }
    return running.size();
  }

  /**
   * Before {@code tree} restores files: what background processes wrote so far belongs to the
   * checkpoint whose files are on disk, not to the restore; {@code restore} runs, and processes of
   * compared commands are then followed from the restored files.
   */
  public <T> T aroundRestore(TabHistory tree, Supplier<T> restore) {
    settleLayersAt(tree);
    Compared left = compared.get(tree.tabId());
    StillRunning running = left == null ? StillRunning.NONE : left.capture().locked(() -> recordSoFar(tree));
    try {
      return restore.get();
    } finally {
      if (running != StillRunning.NONE) {
        running.capture().locked(() -> {
          watchFromHere(tree, running);
          return null;
        });
      }
    }
  }

  /**
   * Stops what {@code tree}'s commands left running (its tab is closing, or Waymark is), then
   * records what they changed: nothing they would do later can happen outside a checkpoint.
   */
  public void stop(TabHistory tree) {
    whenEnded.remove(tree.tabId());
    stopLayers(tree);
    Compared left = compared.get(tree.tabId());
    if (left != null && left.tree() == tree) {
      left.capture().locked(() -> {
        CommandMark.stop(left.processes(), 2_000);
        recordSoFar(tree);
        forgetMarks(tree.tabId());
        return null;
      });
    }
  }

  /** Stops every tab's processes and records what they changed, then ends the watcher (the store closes). */
  @Override
  public void close() {
    List<TabHistory> trees = new ArrayList<>();
    layered.values().stream().filter(l -> !l.isEmpty()).forEach(l -> trees.add(l.get(0).tree()));
    compared.values().forEach(c -> trees.add(c.tree()));
    for (TabHistory tree : trees) {
      try {
        stop(tree);
      } catch (RuntimeException e) {
        LOG.warn("could not stop or record the background processes of tab {}", tree.tabId(), e);
      }
    }
    synchronized (this) {
      if (watcher != null) {
        watcher.shutdownNow();
      }
    }
  }

  /** Whether {@code process} is a sandbox's first process; one whose command cannot be read counts as ended. */
  private static boolean sandboxInit(ProcessHandle process) {
    return CommandMark.sandboxInit(process, true);
  }

  // ---- commands captured by comparison: called under the capture's lock

  /**
   * Notes that a command of {@code turn}'s tab left processes running: what they change later is
   * recorded at the tab's next scan (its next command, or the end of its turn).
   */
  void leftRunning(TabRecords turn, Scan after, List<ProcessHandle> processes, CommandMark mark, ComparedCapture capture) {
    // what earlier commands left and still runs is followed on, with this command's
    Compared earlier = compared.get(turn.tabId());
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
      follow(turn.tabId(), new Compared(turn.history(), after, List.copyOf(all), Set.copyOf(marks), capture));
    }
  }

  /** Records in {@code turn} what the tab's compared commands' background processes changed since its last scan. */
  WorkTreeChanges settleCompared(TabRecords turn) {
    Compared left = compared.remove(turn.tabId());
    if (left == null) {
      return new WorkTreeChanges(List.of(), List.of());
    }
    Recorded found = left.capture().record(turn, left.after());
    if (!found.changes().recorded().isEmpty()) {
      turn.persist();
    }
    List<ProcessHandle> alive = left.processes().stream().filter(ProcessHandle::isAlive).toList();
    follow(turn.tabId(), left.following(found.after().get(), alive));
    return found.changes();
  }

  /**
   * Stops what the tab's commands left running in a Waymark that stopped without stopping them
   * (killed): their marks were kept in the store while they could run. What they changed after
   * that Waymark stopped is on disk and in no checkpoint, like an edit made between two runs.
   */
  Optional<String> stopJobsLeftBehind(String tab) {
    if (compared.containsKey(tab)) {
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

  /** Keeps {@code left} as the tab's, and its marks in the store while any of its processes may run. */
  private void follow(String tab, Compared left) {
    if (left == null || left.processes().isEmpty()) {
      compared.remove(tab);
      if (keptMarks.remove(tab) != null) {
        journal.clearJobs(tab);
      }
    } else {
      compared.put(tab, left);
      if (!left.marks().equals(keptMarks.get(tab))) { // not rewritten at every scan while a job runs
        journal.writeJobs(tab, left.marks());
        keptMarks.put(tab, left.marks());
      }
    }
  }

  private void forgetMarks(String tab) {
    keptMarks.remove(tab);
    journal.clearJobs(tab);
  }

  /**
   * What the compared processes of {@code tree} changed since its last scan is recorded in the
   * checkpoint whose files are on disk (amended), so that a restore's own writes are never taken
   * for theirs and undoing that checkpoint undoes them too. Returns those still running.
   */
  private StillRunning recordSoFar(TabHistory tree) {
    Compared left = compared.remove(tree.tabId());
    if (left == null) {
      return StillRunning.NONE;
    }
    int at = tree.filesAt();
    if (at > 0) {
      try {
        if (!left.capture().unlessACommandRuns(() -> tree.amend(at, turn -> left.capture().record(turn, left.after()).changes()))) {
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
        left.marks(), left.capture());
  }

  /** After a restore: the processes {@link #recordSoFar} found running are watched again from the restored files. */
  private void watchFromHere(TabHistory tree, StillRunning running) {
    List<ProcessHandle> alive = running.processes().stream().filter(ProcessHandle::isAlive).toList();
    follow(tree.tabId(), alive.isEmpty() ? null
        : new Compared(tree, running.capture().scanNow(running.maxFileSize()), alive, running.marks(), running.capture()));
  }

  // ---- commands run in layers

  /** Follows {@code layer}, whose command of {@code tree}'s tab left {@code processes} running, from what {@code soFar} applied. */
  void followLayer(TabHistory tree, Layer layer, Set<String> mountPoints, long maxFileSize, List<ProcessHandle> processes,
      LayerApply.SoFar soFar, LayerRecording recording) {
    layered.computeIfAbsent(tree.tabId(), t -> new CopyOnWriteArrayList<>())
        .add(new Layered(tree, layer, mountPoints, maxFileSize, List.copyOf(processes), soFar, recording));
    watchForEnds();
  }

  /**
   * {@code ended} runs (on the watcher thread) once each time the processes that {@code tab}'s
   * commands left running in a layer have all ended, so that the tab applies and records what they
   * wrote ({@link #settleLayersAt}) while nothing else happens in it; null stops telling.
   */
  public void onLayersEnded(String tab, Runnable ended) {
    if (ended == null) {
      whenEnded.remove(tab);
    } else {
      whenEnded.put(tab, ended);
    }
  }

  /**
   * Applies and records in {@code turn} what the tab's commands' background processes changed in
   * their layers since the last time (at the tab's next command and as its turn ends); a layer
   * whose processes have all ended is applied a last time and removed.
   */
  WorkTreeChanges settleLayers(TabRecords turn) {
    List<Layered> followed = layered.get(turn.tabId());
    List<FileChange> recorded = new ArrayList<>();
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    if (followed == null) {
      return new WorkTreeChanges(recorded, skipped);
    }
    for (Layered layer : List.copyOf(followed)) {
      boolean ended = layer.ended();
      LayerRecording.Outcome outcome = layer.recording().applyAndRecord(turn, layer.layer(), layer.mountPoints(),
          layer.maxFileSize(), layer.soFar(), !ended);
      recorded.addAll(outcome.changes().recorded());
      skipped.addAll(outcome.changes().skipped());
      followed.remove(layer);
      told.remove(layer.layer());
      if (!ended) {
        try {
          followed.add(new Layered(layer.tree(), layer.layer().restarted(), layer.mountPoints(), layer.maxFileSize(),
              layer.processes(), layer.soFar(), layer.recording()));
        } catch (IOException e) {
          LOG.warn("could not keep following {}", layer.layer(), e);
        }
      }
    }
    return new WorkTreeChanges(recorded, skipped);
  }

  /**
   * {@link #settleLayers} into the checkpoint whose files are on disk (before a restore of {@code tree},
   * or when the processes ended while the tab was idle), when there is one; what it recorded.
   */
  public WorkTreeChanges settleLayersAt(TabHistory tree) {
    List<Layered> followed = layered.get(tree.tabId());
    if (followed == null || followed.isEmpty() || tree.filesAt() <= 0) {
      return new WorkTreeChanges(List.of(), List.of());
    }
    return tree.amend(tree.filesAt(), this::settleLayers);
  }

  private void stopLayers(TabHistory tree) {
    List<Layered> followed = layered.get(tree.tabId());
    if (followed == null || followed.isEmpty()) {
      return;
    }
    for (Layered layer : followed) {
      CommandMark.stop(layer.processes(), 2_000);
      new CommandMark(layer.layer().mark()).stopAll(2_000);
    }
    try {
      settleLayersAt(tree);
    } finally {
      layered.remove(tree.tabId());
    }
  }

  /** Checks the followed layers every {@link #WATCH_MILLIS} while there are any. */
  private synchronized void watchForEnds() {
    if (!watching) {
      watching = true;
      if (watcher == null || watcher.isShutdown()) {
        watcher = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "waymark-command-jobs");
          t.setDaemon(true);
          return t;
        });
      }
      watcher.schedule(this::checkEnds, WATCH_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void checkEnds() {
    try {
      for (var tab : layered.entrySet()) {
        Runnable ended = whenEnded.get(tab.getKey());
        for (Layered layer : tab.getValue()) {
          if (ended != null && !told.contains(layer.layer()) && layer.ended()) {
            told.add(layer.layer());
            ended.run();
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("could not check whether background processes ended", e);
    }
    synchronized (this) {
      if (layered.values().stream().allMatch(List::isEmpty) || watcher.isShutdown()) {
        watching = false; // nothing left to follow: the next follow starts watching again
      } else {
        watcher.schedule(this::checkEnds, WATCH_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
  }
}
