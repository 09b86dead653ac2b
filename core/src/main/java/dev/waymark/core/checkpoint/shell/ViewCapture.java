package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.layer.LayerChange;
import dev.waymark.core.layer.LayerSupport;
import dev.waymark.core.layer.View;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The capture of an isolated tab's commands: a command runs in the sandbox with the tab's
 * {@link View} mounted at the project's path (the overlay with the view's own upper directory), so
 * what it changes is what changed in that upper directory while it ran. Before it, what the upper
 * directory holds is read, and its files stored that changed since an earlier command stored them
 * ({@link ViewVersions}: the view's own changes, not the project); after
 * it, each path whose entry there changed is recorded, from what the view showed before to what
 * it shows now. What the command left running is stopped first, so that nothing writes in the view
 * after its checkpoint (undo would leave it, a land would land it). The project is never written;
 * commands of different tabs run at once.
 */
public final class ViewCapture implements CommandCapture {
  /** How long what a command left running is given to end once stopped. */
  private static final long STOP_MILLIS = 2_000;
  private final View view;
  private final LayerSupport support;
  private final ViewVersions stored;

  /** {@code stored}: what earlier commands of the view stored, kept for as long as the store is open. */
  ViewCapture(View view, LayerSupport support, ViewVersions stored) {
    this.view = view;
    this.support = support;
    this.stored = stored;
  }

  /** {@code argv} (a sandbox's command line) run on the view mounted read-only: a plan-mode command sees the tab's files and changes none. */
  public List<String> enterReadOnly(List<String> argv) {
    return support.enterReadOnly(view, argv);
  }

  @Override
  public boolean takesTurns() {
    return false; // the view is the tab's own: other commands write elsewhere
  }

  /** An entry of the upper directory as seen: what changes when it is written, and when it last changed (nanoseconds since the epoch). */
  private record Stamp(String key, long changedNanos) {}

  /**
   * The view's entries before the command: by path, the entry's stamp and the version stored;
   * {@code read}, how many of them had to be read and stored (the others were as earlier commands left them).
   */
  private record Held(Map<String, Stamp> stamps, Map<String, FileVersion> versions, long maxFileSize, int read,
      FileTime started) implements Before {
    @Override
    public int fileCount() {
      return versions.size();
    }

    @Override
    public int examined() {
      return stamps.size();
    }

    @Override
    public int stored() {
      return read;
    }

    @Override
    public boolean readUsersIndex() {
      return false;
    }
  }

  /** {@link Held} with the command line that enters the view. */
  private record Entering(Held held, View view, LayerSupport support) implements Before {
    @Override
    public List<String> enter(List<String> argv) {
      return support.enter(view, argv);
    }

    @Override
    public int fileCount() {
      return held.fileCount();
    }

    @Override
    public int examined() {
      return held.examined();
    }

    @Override
    public int stored() {
      return held.stored();
    }

    @Override
    public boolean readUsersIndex() {
      return false;
    }
  }

  @Override
  public Before before(TabRecords checkpoint, long maxFileSize, CommandMark mark) {
    if (!support.available()) {
      throw new CheckpointException(CheckpointException.Kind.UNSUPPORTED, "no copy-on-write view can be mounted here: " + support.unavailable());
    }
    try {
      long seen = nowNanos();
      Map<String, Stamp> stamps = stamps();
      Map<String, FileVersion> versions = new LinkedHashMap<>();
      List<String> paths = new ArrayList<>();
      List<FileState> states = new ArrayList<>();
      for (Map.Entry<String, Stamp> entry : stamps.entrySet()) {
        Optional<FileVersion> known = stored.vouched(entry.getKey(), entry.getValue().key());
        if (known.isPresent()) {
          versions.put(entry.getKey(), known.get()); // as an earlier command left it: not read again
          continue;
        }
        FileState state = shown(entry.getKey());
        if (state.exists() && state.contentUnsafe().length <= maxFileSize) {
          paths.add(entry.getKey());
          states.add(state);
        }
      }
      List<FileVersion> fresh = checkpoint.store(states);
      for (int i = 0; i < paths.size(); i++) {
        versions.put(paths.get(i), fresh.get(i));
        Stamp stamp = stamps.get(paths.get(i));
        stored.put(paths.get(i), stamp.key(), stamp.changedNanos(), seen, fresh.get(i));
      }
      // last: from here the project's files are compared with the moment the command may change the view
      FileTime started = view.commandStarts();
      return new Entering(new Held(stamps, versions, maxFileSize, paths.size(), started), view, support);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, e.getMessage(), e);
    }
  }

  @Override
  public Way way() {
    return Way.VIEWED;
  }

  @Override
  public boolean neverRan(int exitCode, String output) {
    return LayerSupport.notMounted(exitCode, output);
  }

  @Override
  public After after(TabRecords checkpoint, Before before) {
    return after(checkpoint, before, new Ended(List.of(), List::of));
  }

  @Override
  public After after(TabRecords checkpoint, Before before, Ended ended) {
    Held held = ((Entering) before).held();
    // an isolated tab's command ends whole: nothing it started may write in the view after its checkpoint
    CommandMark.stop(ended.stillRunning().get(), STOP_MILLIS);
    try {
      Set<String> points = new HashSet<>();
      ended.mountPoints().forEach(p -> points.add(view.project().relativize(p).toString()));
      view.afterCommand(points, held.started());
      long seen = nowNanos();
      Map<String, Stamp> now = stamps();
      Set<String> changed = new TreeSet<>();
      held.stamps().forEach((path, stamp) -> {
        if (!stamp.equals(now.get(path))) {
          changed.add(path);
        }
      });
      now.forEach((path, stamp) -> {
        if (!stamp.equals(held.stamps().get(path))) {
          changed.add(path);
        }
      });
      changed.forEach(stored::forget); // noted again below once stored
      List<String> paths = new ArrayList<>();
      List<FileState> states = new ArrayList<>();
      List<FileVersion> befores = new ArrayList<>();
      List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
      List<FileState> projectBefores = new ArrayList<>();
      List<Integer> fromProject = new ArrayList<>();
      for (String path : changed) {
        FileState after = shown(path);
        FileVersion kept = held.versions().get(path);
        FileState fromLower = null;
        if (kept == null && !held.stamps().containsKey(path)) {
          fromLower = projectState(path); // not the view's before: what the project held, which the command did not change
        }
        long size = Math.max(after.exists() ? after.contentUnsafe().length : 0,
            fromLower != null && fromLower.exists() ? fromLower.contentUnsafe().length : 0);
        if (size > held.maxFileSize()) {
          skipped.add(new WorkTreeChanges.Skipped(path, "larger than the " + held.maxFileSize()
              + "-byte limit: changed in the view, not recorded, and undo leaves it"));
          continue;
        }
        paths.add(path);
        states.add(after);
        befores.add(kept != null ? kept : FileVersion.ABSENT);
        if (fromLower != null) {
          fromProject.add(paths.size() - 1);
          projectBefores.add(fromLower);
        }
      }
      List<FileVersion> afters = checkpoint.store(states);
      for (int i = 0; i < paths.size(); i++) {
        Stamp stamp = now.get(paths.get(i));
        if (states.get(i).exists() && stamp != null) {
          stored.put(paths.get(i), stamp.key(), stamp.changedNanos(), seen, afters.get(i));
        }
      }
      List<FileVersion> lowers = checkpoint.store(projectBefores);
      for (int i = 0; i < fromProject.size(); i++) {
        befores.set(fromProject.get(i), lowers.get(i));
      }
      List<FileChange> changes = new ArrayList<>();
      for (int i = 0; i < paths.size(); i++) {
        if (!befores.get(i).equals(afters.get(i))) {
          changes.add(new FileChange(paths.get(i), befores.get(i), afters.get(i)));
        }
      }
      checkpoint.recordStoredChanges(changes).forEach((path, why) -> skipped.add(new WorkTreeChanges.Skipped(path, why)));
      if (!changes.isEmpty()) {
        checkpoint.persist();
      }
      List<FileChange> recorded = changes.stream().filter(c -> skipped.stream().noneMatch(s -> s.path().equals(c.path())))
          .toList();
      WorkTreeChanges result = new WorkTreeChanges(recorded, skipped);
      return () -> result;
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read what the command changed in the tab's view: " + e.getMessage(), e);
    }
  }

  /** Nothing to follow: {@link #after} stopped them before it read what the command changed. */
  @Override
  public void leftRunning(TabRecords checkpoint, After after, List<ProcessHandle> processes) {}

  /**
   * Every path the view changes in the project (files, links and deletions; not directories) with
   * a stamp of its entry in the upper directory: a path whose stamp changed, or that came or went,
   * was changed by the command.
   */
  private Map<String, Stamp> stamps() throws IOException {
    Map<String, Stamp> stamps = new LinkedHashMap<>();
    for (LayerChange change : view.changes().changes()) {
      switch (change.kind()) {
        case DELETED -> stamps.put(change.path(), new Stamp("deleted with " + change.deletedWith(), 0));
        case FILE, SYMLINK -> stamps.put(change.path(), stamp(change.source()));
        case DIRECTORY -> { }
      }
    }
    return stamps;
  }

  private static Stamp stamp(Path entry) throws IOException {
    var attributes = Files.readAttributes(entry, "unix:ino,size,lastModifiedTime,ctime,mode", LinkOption.NOFOLLOW_LINKS);
    FileTime modified = (FileTime) attributes.get("lastModifiedTime");
    FileTime changed = (FileTime) attributes.get("ctime");
    return new Stamp(attributes.get("ino") + ":" + attributes.get("size") + ":" + modified + ":" + changed + ":"
        + attributes.get("mode"), Math.max(modified.to(TimeUnit.NANOSECONDS), changed.to(TimeUnit.NANOSECONDS)));
  }

  private static long nowNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /** What the view shows at {@code path} now: a file or link, or absent (a directory counts as absent). */
  private FileState shown(String path) throws IOException {
    Optional<Path> at = view.locate(path);
    if (at.isEmpty() || Files.isDirectory(at.get(), LinkOption.NOFOLLOW_LINKS)) {
      return FileState.absent();
    }
    return FileState.read(at.get());
  }

  private FileState projectState(String path) throws IOException {
    Path file = view.project().resolve(path);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
      return FileState.absent();
    }
    return FileState.read(file);
  }
}
