package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.shell.Scan.Seen;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the files a scan could not classify and stores their content in the shadow repository, in
 * batches: the part of {@link Scanner#scan} that costs memory and I/O, apart from the
 * classifying, so that a batch's bound is kept in one place.
 */
final class ContentStore {
  /** Bytes read before a batch of blobs is written: bounds the memory of a first scan. */
  private static final long BATCH_BYTES = 64L << 20;

  private final Path root;
  private final ShadowRepository repo;
  /** Throws when a scan ahead is to stop (the store closes). */
  private final Runnable checkScanAhead;
  private final StatCache cache;

  ContentStore(Path root, ShadowRepository repo, Runnable checkScanAhead, StatCache cache) {
    this.root = root;
    this.repo = repo;
    this.checkScanAhead = checkScanAhead;
    this.cache = cache;
  }

  /** Reads and stores {@code paths}, packed when many; returns how many were read. */
  int storeContent(List<String> paths, PathTable<FileStat> stats, Map<String, Seen> files, long start) {
    List<String> batchPaths = new ArrayList<>();
    List<FileState> batch = new ArrayList<>();
    long batchBytes = 0;
    int read = 0;
    for (String path : paths) {
      checkScanAhead.run();
      FileStat stat = stats.get(path);
      FileState state;
      try {
        state = FileState.read(root.resolve(path));
      } catch (IOException e) {
        files.put(path, new Seen(stat, null, null, "unreadable (" + e.getMessage() + ")"));
        cache.remove(path);
        continue;
      }
      read++;
      if (!state.exists()) {
        continue; // gone since the walk: as if not seen
      }
      batchPaths.add(path);
      batch.add(state);
      batchBytes += state.contentUnsafe().length;
      if (batchBytes >= BATCH_BYTES) {
        flush(batchPaths, batch, stats, files, start);
        batchBytes = 0;
      }
    }
    flush(batchPaths, batch, stats, files, start);
    return read;
  }

  private void flush(List<String> paths, List<FileState> states, PathTable<FileStat> stats, Map<String, Seen> files,
      long start) {
    if (states.isEmpty()) {
      return;
    }
    List<byte[]> contents = new ArrayList<>(states.size());
    states.forEach(s -> contents.add(s.contentUnsafe()));
    var ids = repo.insertBlobs(contents);
    for (int i = 0; i < paths.size(); i++) {
      FileVersion version = new FileVersion(states.get(i).kind(), ids.get(i), states.get(i).mode());
      FileStat stat = stats.get(paths.get(i));
      cache.put(paths.get(i), new StatCache.Entry(stat, version, StatCache.Source.SHADOW, start));
      files.put(paths.get(i), new Seen(stat, version, StatCache.Source.SHADOW, null));
    }
    paths.clear();
    states.clear();
  }
}
