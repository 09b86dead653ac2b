package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The layers whose commands left processes writing in them, per tab: what they wrote so far is
 * applied by copy and recorded at the tab's next command, as its turn ends and before a restore,
 * and a layer whose processes have all ended is applied a last time and removed. Closing the tab
 * or Waymark stops them first.
 */
final class LayerJobs {
  private static final Logger LOG = LoggerFactory.getLogger(LayerJobs.class);

  private final LayerRecording recording;

  LayerJobs(LayerRecording recording) {
    this.recording = recording;
  }

  /** Follows {@code layer}, whose command of {@code tree}'s tab left {@code processes} running, from what {@code soFar} applied. */
  void follow(TabHistory tree, Layer layer, Set<String> mountPoints, long maxFileSize, List<ProcessHandle> processes,
      LayerApply.SoFar soFar) {
    open.computeIfAbsent(tree.tabId(), t -> new CopyOnWriteArrayList<>())
        .add(new Open(tree, layer, mountPoints, maxFileSize, List.copyOf(processes), soFar));
    watchForEnds();
  }

  /**
   * {@code ended} runs (on a watcher thread) once each time the processes that {@code tab}'s
   * commands left running in a layer have all ended, so that the tab applies and records what they
   * wrote ({@link #settleAt}) while nothing else happens in it; null stops telling.
   */
  void onEnded(String tab, Runnable ended) {
    if (ended == null) {
      whenEnded.remove(tab);
    } else {
      whenEnded.put(tab, ended);
    }
  }

  /** By project and tab, who is told that a layer's processes all ended. */
  private final Map<String, Runnable> whenEnded = new ConcurrentHashMap<>();

  /** The layers already told of, so that each ending is told once. */
  private final Set<Layer> told = ConcurrentHashMap.newKeySet();

  /** Checks the followed layers of this project every {@link #WATCH_MILLIS} while there are any. */
  private synchronized void watchForEnds() {
    if (!watching) {
      watching = true;
      if (watcher == null || watcher.isShutdown()) {
        watcher = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "waymark-layer-jobs");
          t.setDaemon(true);
          return t;
        });
      }
      watcher.schedule(this::checkEnds, WATCH_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void checkEnds() {
    try {
      for (var tab : open.entrySet()) {
        Runnable ended = whenEnded.get(tab.getKey());
        for (Open layer : tab.getValue()) {
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
      if (open.values().stream().allMatch(List::isEmpty) || watcher.isShutdown()) {
        watching = false; // nothing left to follow: the next follow starts watching again
      } else {
        watcher.schedule(this::checkEnds, WATCH_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
  }

  private static final long WATCH_MILLIS = 500;
  private boolean watching; // guarded by this
  private ScheduledExecutorService watcher; // made at the first follow, ended by stopAll: a store with no jobs has no thread

  /** A layer whose command left processes writing in it, and what was applied of it so far. */
  private record Open(TabHistory tree, Layer layer, Set<String> mountPoints, long maxFileSize, List<ProcessHandle> processes,
      LayerApply.SoFar soFar) {
    boolean ended() {
      return processes.stream().filter(ProcessHandle::isAlive).allMatch(LayerJobs::sandboxInit)
          && new CommandMark(layer.mark()).processes().stream().allMatch(LayerJobs::sandboxInit);
    }
  }

  /** By project (its layers' directory) and tab, the layers background processes still write in. */
  private final Map<String, List<Open>> open = new ConcurrentHashMap<>();

  /** Whether {@code process} is a sandbox's first process, which only waits for the others to end. */
  private static boolean sandboxInit(ProcessHandle process) {
    return process.info().command().map(c -> c.endsWith("/bwrap")).orElse(true);
  }

  /**
   * Applies and records in {@code turn} what the tab's commands' background processes changed in
   * their layers since the last time (at the tab's next command and as its turn ends); a layer
   * whose processes have all ended is applied a last time and removed.
   */
  WorkTreeChanges settle(TabRecords turn) {
    List<Open> followed = open.get(turn.tabId());
    List<FileChange> recorded = new ArrayList<>();
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    if (followed == null) {
      return new WorkTreeChanges(recorded, skipped);
    }
    for (Open layer : List.copyOf(followed)) {
      boolean ended = layer.ended();
      LayerRecording.Outcome outcome = recording.applyAndRecord(turn, layer.layer(), layer.mountPoints(), layer.maxFileSize(), layer.soFar(), !ended);
      recorded.addAll(outcome.changes().recorded());
      skipped.addAll(outcome.changes().skipped());
      followed.remove(layer);
      told.remove(layer.layer());
      if (!ended) {
        try {
          followed.add(new Open(layer.tree(), layer.layer().restarted(), layer.mountPoints(), layer.maxFileSize(), layer.processes(),
              layer.soFar()));
        } catch (IOException e) {
          LOG.warn("could not keep following {}", layer.layer(), e);
        }
      }
    }
    return new WorkTreeChanges(recorded, skipped);
  }

  /**
   * {@link #settle} into the checkpoint whose files are on disk (before a restore of {@code tree},
   * or when the processes ended while the tab was idle), when there is one; what it recorded.
   */
  WorkTreeChanges settleAt(TabHistory tree) {
    List<Open> followed = open.get(tree.tabId());
    if (followed == null || followed.isEmpty() || tree.filesAt() <= 0) {
      return new WorkTreeChanges(List.of(), List.of());
    }
    return tree.amend(tree.filesAt(), this::settle);
  }

  /**
   * Stops the background processes of {@code tree}'s commands' layers (its tab or Waymark is
   * closing), then applies and records what they changed: nothing they do can happen later.
   */
  void stopBackground(TabHistory tree) {
    List<Open> followed = open.get(tree.tabId());
    if (followed == null || followed.isEmpty()) {
      return;
    }
    for (Open layer : followed) {
      CommandMark.stop(layer.processes(), 2_000);
      new CommandMark(layer.layer().mark()).stopAll(2_000);
    }
    try {
      settleAt(tree);
    } finally {
      open.remove(tree.tabId());
    }
  }

  /** {@link #stopBackground} for every tab of the project, then ends the watcher (Waymark is closing). */
  void stopAll() {
    for (List<Open> followed : List.copyOf(open.values())) {
      if (!followed.isEmpty()) {
        try {
          stopBackground(followed.get(0).tree());
        } catch (RuntimeException e) {
          LOG.warn("could not stop or record the background processes of tab {}", followed.get(0).tree().tabId(), e);
        }
      }
    }
    synchronized (this) {
      if (watcher != null) {
        watcher.shutdownNow();
      }
    }
  }

  /** How many processes the commands' layers of this project's tabs still have running (what quitting would stop). */
  int runningInBackground() {
    return (int) open.values().stream().flatMap(List::stream)
        .flatMap(o -> o.processes().stream()).filter(ProcessHandle::isAlive).filter(p -> !sandboxInit(p)).count();
  }
}
