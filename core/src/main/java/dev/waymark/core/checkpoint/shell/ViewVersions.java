package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileVersion;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What an isolated tab's commands already stored of its view, by path: the stamp of the upper
 * directory's entry (inode, size, times, mode) and the version stored, so that before each
 * command only the entries whose stamp changed since are read and stored again (what the tab's
 * tools wrote, what a restore put back), not the whole view. Kept in memory, for as long as the
 * process keeps the project's store open.
 *
 * <p>A stamp is trusted only when it was taken well after the entry's last change: a write in the
 * same tick of the file system's clock would leave the stamp as it was (git's "racy" entries), so
 * such an entry is read again next time, and trusted once seen later.
 */
final class ViewVersions {
  /** Longer than a tick of the kernel's coarse clock, which stamps the files' times. */
  static final long RACY_NANOS = 50_000_000L;

  private record Stored(String stamp, long changedNanos, long seenNanos, FileVersion version) {}

  private final Map<String, Stored> stored = new ConcurrentHashMap<>();

  /** The version stored of {@code path}, if its entry still has {@code stamp} and that could be trusted. */
  Optional<FileVersion> vouched(String path, String stamp) {
    Stored s = stored.get(path);
    return s != null && s.stamp().equals(stamp) && s.seenNanos() - s.changedNanos() > RACY_NANOS
        ? Optional.of(s.version()) : Optional.empty();
  }

  /**
   * Notes that {@code path}, whose entry had {@code stamp} (last changed at {@code changedNanos},
   * since the epoch) when it was seen at {@code seenNanos}, is {@code version}.
   */
  void put(String path, String stamp, long changedNanos, long seenNanos, FileVersion version) {
    stored.put(path, new Stored(stamp, changedNanos, seenNanos, version));
  }

  void forget(String path) {
    stored.remove(path);
  }
}
