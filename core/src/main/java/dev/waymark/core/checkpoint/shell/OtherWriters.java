package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.Scan.Seen;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What of a shell command's apparent changes other writers made: the tabs of this process or
 * another that wrote the project while the command ran, as the {@link WriteLog} tells. Their
 * writes are their checkpoints' changes, not the command's.
 */
final class OtherWriters {
  private static final Logger LOG = LoggerFactory.getLogger(OtherWriters.class);

  /**
   * How long before its file is written a tool's write may be noted ({@link TurnRecorder#recordAhead}
   * notes it, then writes): such a note from just before a command began may be of a write the
   * command's scan did not see. A note older than that is of a write the scan saw.
   */
  static final long NOTED_AHEAD_MILLIS = 250;

  private final WriteLog writeLog;
  private final ShadowRepository repo;

  OtherWriters(WriteLog writeLog, ShadowRepository repo) {
    this.writeLog = writeLog;
    this.repo = repo;
  }

  /**
   * Leaves out what another tab (of this process or another) wrote at that path while the command
   * ran: it is that tab's change, recorded in its own checkpoint. The file's new stat becomes the
   * baseline, so it is not taken for this tab's later either. Where another tab wrote first and the
   * command changed what it wrote, the command's change starts from that tab's version; where
   * another tab wrote over the command's version, the change ends at the command's version (an undo
   * then finds the other tab's write and does not clobber it).
   */
  List<Pending> withoutOthersWrites(String tab, List<Pending> pending, long sinceMillis, long now, StatCache cache) {
    if (pending.isEmpty()) {
      return pending;
    }
    Map<String, List<WriteLog.Write>> byPath = new HashMap<>();
    // noted since the command began, less the moment a write is noted ahead of being made: an older one was in its scan
    for (WriteLog.Write w : writeLog.since(sinceMillis - NOTED_AHEAD_MILLIS)) {
      if (!w.tab().equals(tab)) {
        byPath.computeIfAbsent(w.path(), k -> new ArrayList<>()).add(w);
      }
    }
    if (byPath.isEmpty()) {
      return pending;
    }
    List<Pending> mine = new ArrayList<>();
    for (Pending p : pending) {
      List<WriteLog.Write> writes = byPath.getOrDefault(p.path(), List.of());
      Pending share = writes.isEmpty() ? p : commandsShare(p, writes, sinceMillis);
      if (share == null) {
        LOG.debug("{} was written by tab {} while a command ran; not taken for the command's", p.path(),
            writes.get(writes.size() - 1).tab());
        if (p.now() == null) {
          cache.remove(p.path());
        } else if (p.current().exists() && repo.has(p.current().blob())) {
          cache.put(p.path(), new StatCache.Entry(p.now(), p.current(), StatCache.Source.SHADOW, now));
        } else {
          cache.remove(p.path());
        }
        continue;
      }
      mine.add(share);
    }
    return mine;
  }

  /**
   * What of {@code p} is the command's, given other tabs' {@code writes} at its path (oldest first):
   * null when their writes lead from what the command's scan saw to what is there now. Else, of
   * their writes noted after the command began ({@code sinceMillis}), the first ones that each
   * replaced what the one before wrote, starting from what the scan saw, were made before the
   * command changed the file: its change starts from what they wrote. The first write after those
   * replaced what the command had written by then: its change ends there, so that an undo finds
   * the other tab's write and stops, instead of clobbering it (what the command wrote after it
   * stays on disk, and a forced undo keeps it under a rescued tag). Only between versions of a
   * plain file, never a link's.
   */
  private Pending commandsShare(Pending p, List<WriteLog.Write> writes, long sinceMillis) {
    FileVersion was = p.was() == null ? FileVersion.ABSENT : p.was().version();
    // going back from what is there now through what they wrote: reaching what the scan saw makes it all theirs
    FileVersion back = p.current();
    for (int i = writes.size() - 1; i >= 0 && writes.get(i).wrote(back); i--) {
      WriteLog.Write w = writes.get(i);
      if (w.replaced(was)) {
        return null;
      }
      if (w.prior() == null) {
        break;
      }
      back = versionOf(w.priorBlob(), p.current());
    }
    FileVersion start = was;
    FileVersion end = p.current();
    boolean startMoved = false;
    boolean endMoved = false;
    for (WriteLog.Write w : writes) {
      if (w.millis() < sinceMillis || w.prior() == null) {
        continue;
      }
      if (w.replaced(start) && !w.wrote(start)) {
        start = versionOf(w.blob(), was);
        startMoved = true;
      } else {
        end = versionOf(w.priorBlob(), p.current());
        endMoved = true;
        break;
      }
    }
    if (!endMoved && !startMoved) {
      return p;
    }
    if (start.exists() == end.exists() && (!start.exists() || start.blob().equals(end.blob()))) {
      return null; // their writes account for all of it
    }
    if (!plainFile(was) || !plainFile(p.current()) || startMoved && start.exists() && !repo.has(start.blob())
        || endMoved && end.exists() && !repo.has(end.blob())) {
      return p; // what another tab wrote is not known well enough: the whole change is the command's, as seen
    }
    Seen from = !startMoved ? p.was()
        : new Seen(p.was() == null ? FileStat.MISSING : p.was().stat(), start, StatCache.Source.SHADOW, null);
    return new Pending(p.path(), from, p.now(), p.state(), end, p.current());
  }

  private static boolean plainFile(FileVersion version) {
    return !version.exists() || version.kind() == FileKind.REGULAR || version.kind() == FileKind.EXECUTABLE;
  }

  /** The version of {@code blob} (null: none) as a file of the kind {@code like} has, keeping the mode it finds. */
  private static FileVersion versionOf(String blob, FileVersion like) {
    if (blob == null) {
      return FileVersion.ABSENT;
    }
    FileKind kind = like.exists() ? like.kind() : FileKind.REGULAR;
    return new FileVersion(kind, ObjectId.fromString(blob), FileVersion.NO_MODE);
  }
}
