package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.project.UserGitRepository;
import java.util.Map;
import java.util.Optional;

/**
 * The user's index for one scan: read at most once, and only when a file needs it. While the
 * index file is as the stat cache last saw it, the cache's entries from it need no second look.
 */
final class IndexLookup {
  private final Optional<UserGitRepository> userGit;
  /** The index file at the scan's start. */
  final FileStat stamp;
  private volatile UserGitRepository.Index read;

  IndexLookup(Optional<UserGitRepository> userGit) {
    this.userGit = userGit;
    this.stamp = userGit.map(UserGitRepository::indexStamp).orElse(FileStat.MISSING);
  }

  /** Whether the cache's entries taken from the user's index still agree with it. */
  boolean cacheAgrees(StatCache cache) {
    return stamp.kind() != FileKind.ABSENT && stamp.equals(cache.indexStamp());
  }

  Map<String, UserGitRepository.Tracked> tracked() {
    if (read == null) {
      read = userGit.map(UserGitRepository::index).orElse(UserGitRepository.Index.NONE);
    }
    return read.tracked();
  }

  boolean wasRead() {
    return read != null && read != UserGitRepository.Index.NONE;
  }

  /** The index every user's-git entry of the cache agrees with after this scan; MISSING when they may differ. */
  FileStat agreedAfter(boolean cacheAgreed, boolean whole) {
    if (read == null) {
      return cacheAgreed ? stamp : FileStat.MISSING;
    }
    return (whole && !cacheAgreed) || read.stamp().equals(stamp) && cacheAgreed ? read.stamp() : FileStat.MISSING;
  }
}
