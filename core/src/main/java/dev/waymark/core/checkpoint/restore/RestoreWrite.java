package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.store.RestoreJournal;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write half of a restore: journal every step, write them (removals first, in parallel when
 * there are many), stop and put back what was written when a file changed since it was checked,
 * roll back and throw when a write fails, and say what was written.
 */
final class RestoreWrite {
  /** At least this many files to write: they are written in parallel. */
  static final int PARALLEL_WRITES = 256;

  private static final Logger LOG = LoggerFactory.getLogger(RestoreWrite.class);

  private final RestoreParts parts;
  private final String tabId;
  private final int to;

  RestoreWrite(RestoreParts parts, int to) {
    this.parts = parts;
    this.tabId = parts.tabId();
    this.to = to;
  }

  /**
   * Writes every step, or none: a file that changed after it was checked (someone saved or
   * deleted it while the restore ran) stops the restore, which puts back what it had written and
   * names that file; a failed write does the same and throws.
   */
  Optional<String> apply(List<RestoreStep> steps, Map<String, FileStamp> checked, long checkedAt, int liveNumber) throws IOException {
    // Removals first, deepest first, so that a directory can take a removed file's place.
    steps.sort(Comparator.comparing((RestoreStep s) -> s.next().exists())
        .thenComparing(s -> s.next().exists() ? depth(s.path()) : -depth(s.path()))
        .thenComparing(RestoreStep::path));
    List<RestoreJournal.Entry> entries = new ArrayList<>();
    for (RestoreStep step : steps) {
      entries.add(RestoreJournal.Entry.of(step.path(), step.prior(), step.next()));
    }
    try {
      RestoreJournal.write(parts.journalFile(), new RestoreJournal.Content(1, tabId, liveNumber, to, entries));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Cannot restore #" + to + ": the restore journal could not be written in "
          + parts.journalFile().getParent() + " (" + reason(e) + "); no file was changed.", e);
    }
    long generation = parts.workTree().beginWrites();
    int firstWrite = 0;
    while (firstWrite < steps.size() && !steps.get(firstWrite).next().exists()) {
      firstWrite++;
    }
    // Many files to remove, or to write: on every core (a large restore waits on the file system);
    // a few: one by one, in order, which is also what the tests' write hook relies on.
    List<RestoreStep> applied = new ArrayList<>(steps.size());
    RestoreStep current = null;
    try {
      for (List<RestoreStep> batch : List.of(steps.subList(0, firstWrite), steps.subList(firstWrite, steps.size()))) {
        if (batch.size() < PARALLEL_WRITES) {
          for (RestoreStep step : batch) {
            current = step;
            if (!applyOne(step, checked, checkedAt)) {
              return stopped(applied, step);
            }
            applied.add(step);
          }
          continue;
        }
        List<RestoreStep> written = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<RestoreStep> changed = new AtomicReference<>();
        AtomicReference<RestoreStep> failedStep = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        batch.parallelStream().forEach(step -> {
          if (changed.get() != null || failure.get() != null) {
            return;
          }
          try {
            if (applyOne(step, checked, checkedAt)) {
              written.add(step);
            } else {
              changed.compareAndSet(null, step);
            }
          } catch (IOException | RuntimeException e) {
            if (failure.compareAndSet(null, e)) {
              failedStep.set(step);
            }
          }
        });
        applied.addAll(written);
        if (failure.get() != null) {
          current = failedStep.get();
          throw failure.get();
        }
        if (changed.get() != null) {
          return stopped(applied, changed.get());
        }
      }
    } catch (Exception e) {
      String failedAt = current == null ? "?" : current.path();
      if (current != null && !applied.contains(current)) {
        applied.add(current);
      }
      rollBack(applied);
      Files.deleteIfExists(parts.journalFile());
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Restore of #" + to + " failed at " + failedAt + ": "
          + (current == null ? String.valueOf(e.getMessage()) : why(e, current.path()))
          + "; every file was put back as it was.", e);
    }
    Files.deleteIfExists(parts.journalFile());
    parts.workTree().writesDone(generation);
    List<FileChange> wrote = new ArrayList<>(steps.size());
    for (RestoreStep step : steps) {
      wrote.add(new FileChange(step.path(), step.prior(), step.next()));
    }
    parts.written().accept(wrote);
    return Optional.empty();
  }

  /** Why writing {@code path} failed, in words, naming the project's directory rather than a temporary file. */
  static String why(Exception e, String path) {
    if (!(e instanceof FileSystemException)) {
      return String.valueOf(e.getMessage());
    }
    int slash = path.lastIndexOf('/');
    String dir = slash < 0 ? "the project directory" : path.substring(0, slash + 1);
    String lower = reason(e);
    if (lower.contains("permission denied") || lower.contains("operation not permitted")) {
      return "permission denied in " + dir + (lower.equals("permission denied") ? "" : " (" + lower + ")")
          + "; make the file and its directory writable and try again";
    }
    if (lower.contains("name too long")) {
      return "its name is too long for the file system (" + lower + ")";
    }
    if (lower.contains("no space left")) {
      return "the disk is full (" + lower + ")";
    }
    if (lower.contains("read-only file system")) {
      return "the project is on a read-only file system";
    }
    return lower;
  }

  /** What the system said, without the path of the file it was about ("operation not permitted"). */
  static String reason(Exception e) {
    if (!(e instanceof FileSystemException failure)) {
      return String.valueOf(e.getMessage());
    }
    String reason = failure instanceof AccessDeniedException ? "permission denied"
        : failure instanceof NoSuchFileException ? "no such file or directory"
        : failure.getReason() == null ? failure.getClass().getSimpleName() : failure.getReason();
    return reason.toLowerCase(Locale.ROOT);
  }


  /** Writes or deletes one path; false, with nothing done, when it changed since it was checked. */
  private boolean applyOne(RestoreStep step, Map<String, FileStamp> checked, long checkedAt) throws IOException {
    parts.beforeWrite().accept(step.path());
    if (changedSinceChecked(step, checked.get(step.path()), checkedAt)) {
      return false;
    }
    if (step.next().exists()) {
      if (step.prior().exists() && !parts.workTree().keepReplaced(step.path(), step.prior(), checked.get(step.path()),
          checkedAt, parts.repo())) {
        return false;
      }
      parts.workTree().write(step.path(), step.next(), parts.repo());
      return true;
    }
    return parts.workTree().remove(step.path(), step.prior(), checked.get(step.path()), checkedAt, parts.repo());
  }

  /** A file changed under the restore: what it wrote is put back, and the file is named. */
  private Optional<String> stopped(List<RestoreStep> applied, RestoreStep changed) throws IOException {
    rollBack(applied);
    Files.deleteIfExists(parts.journalFile());
    LOG.warn("restore of #{} stopped: {} changed on disk while it ran", to, changed.path());
    return Optional.of(changed.path());
  }

  private boolean changedSinceChecked(RestoreStep step, FileStamp then, long checkedAt) throws IOException {
    if (then == null || then.directory()) {
      return false; // a directory's stamp changes as this restore empties it; only an empty one is replaced
    }
    WorkTree tree = parts.workTree();
    if (!then.equals(tree.stamp(step.path()))) {
      return true;
    }
    if (!then.racy(checkedAt)) {
      return false;
    }
    WorkTree.DiskFile disk = tree.read(step.path(), parts.repo());
    // a FIFO, socket or device (blocked, not a directory) has no content that could change unseen: its stamp says all
    return !disk.blocked() && !disk.matches(step.prior());
  }

  private void rollBack(List<RestoreStep> applied) {
    WorkTree tree = parts.workTree();
    for (int i = applied.size() - 1; i >= 0; i--) {
      RestoreStep step = applied.get(i);
      try {
        tree.putBack(step.path(), step.prior(), step.next(), parts.repo());
      } catch (IOException | RuntimeException e) {
        LOG.error("could not put back {} while rolling back a failed restore", step.path(), e);
      }
    }
  }

  private static int depth(String path) {
    int depth = 0;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/') {
        depth++;
      }
    }
    return depth;
  }
}
