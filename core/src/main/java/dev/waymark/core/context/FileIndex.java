package dev.waymark.core.context;

import dev.waymark.core.checkpoint.project.ProjectWalker;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's files and directories for the {@code @} finder: walked in the background the way
 * the tools see the project (ignore rules, no build output, no links followed), then searched in
 * memory, so that a keystroke costs one pass over an array, a few milliseconds at 100,000 files.
 * {@link #refresh()} walks again in the background; searches meanwhile use the last walk.
 */
public final class FileIndex {
  private static final Logger LOG = LoggerFactory.getLogger(FileIndex.class);

  /** The most entries indexed: past this the walk stops, and the finder says so. */
  public static final int MAX_ENTRIES = 500_000;

  private final Path root;
  private final AtomicBoolean walking = new AtomicBoolean();
  private final AtomicInteger walks = new AtomicInteger();
  private volatile Runnable whenWalked = () -> { };
  private volatile Snapshot snapshot = new Snapshot(new String[0], new String[0], false, false);

  /** One walk's entries (directories end with {@code /}), and their lower-case forms for matching. */
  private record Snapshot(String[] paths, String[] lower, boolean complete, boolean truncated) {}

  public FileIndex(Path root) {
    this.root = root;
  }

  /** Starts a walk in the background unless one runs; returns at once. */
  public void refresh() {
    if (!walking.compareAndSet(false, true)) {
      return;
    }
    walks.incrementAndGet();
    Thread walker = new Thread(() -> {
      try {
        snapshot = walk();
      } catch (RuntimeException e) {
        LOG.warn("indexing {} for the @ finder failed", root, e);
      } finally {
        walking.set(false);
        whenWalked.run();
      }
    }, "waymark-file-index");
    walker.setDaemon(true);
    walker.start();
  }

  /** Walks now, on this thread (tests, and exec prompts, which need it at once). */
  public void refreshNow() {
    walks.incrementAndGet();
    snapshot = walk();
  }

  /** {@code listener} runs (on the walking thread) each time a background walk ends: the finder is redrawn with its files. */
  public void onWalked(Runnable listener) {
    whenWalked = listener == null ? () -> { } : listener;
  }

  /** Changes each time a walk replaces the entries searched, so that remembered matches are searched again. */
  public Object version() {
    return snapshot;
  }

  /** How many walks of the project were started: none until someone asks for the files. */
  public int walksStarted() {
    return walks.get();
  }

  /** Whether a walk has finished: before that, searches find nothing. */
  public boolean ready() {
    return snapshot.complete();
  }

  /** Whether the project has more entries than {@link #MAX_ENTRIES}, so some are not found. */
  public boolean truncated() {
    return snapshot.truncated();
  }

  public int size() {
    return snapshot.paths().length;
  }

  private Snapshot walk() {
    TreeSet<String> entries = new TreeSet<>();
    boolean[] truncated = {false};
    try {
      ProjectWalker.seeingTracked(root).walk(new ProjectWalker.Visitor() {
        @Override
        public boolean entry(String path, Path file, BasicFileAttributes attributes) {
          if (entries.size() >= MAX_ENTRIES) {
            truncated[0] = true;
            return false;
          }
          entries.add(path);
          for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
            if (!entries.add(path.substring(0, slash + 1))) {
              break; // its parents are in already
            }
          }
          return true;
        }
      });
    } catch (IOException e) {
      LOG.warn("indexing {} for the @ finder stopped: {}", root, e.getMessage());
    }
    String[] paths = entries.toArray(String[]::new);
    String[] lower = Arrays.stream(paths).map(p -> p.toLowerCase(Locale.ROOT)).toArray(String[]::new);
    return new Snapshot(paths, lower, true, truncated[0]);
  }

  /**
   * The best {@code limit} entries for {@code query}: its characters in order (ignoring case),
   * best first: a match in the file name, at the start of a word and in a row scores higher, then
   * shorter paths. An empty query gives the entries at the project's top.
   */
  public List<String> search(String query, int limit) {
    Snapshot s = snapshot;
    String q = query.toLowerCase(Locale.ROOT);
    if (q.isEmpty()) {
      List<String> top = new ArrayList<>();
      for (int i = 0; i < s.paths().length && top.size() < limit; i++) {
        String path = s.paths()[i];
        int slash = path.indexOf('/');
        if (slash < 0 || slash == path.length() - 1) {
          top.add(path); // in name order, as walked
        }
      }
      return top;
    }
    // the best `limit` kept in a heap whose root is the worst of them: no sort of every match
    Comparator<Scored> better = Comparator.comparingInt(Scored::score).thenComparing(x -> -x.path().length())
        .thenComparing(Scored::path, Comparator.reverseOrder());
    PriorityQueue<Scored> best = new PriorityQueue<>(limit + 1, better);
    for (int i = 0; i < s.paths().length; i++) {
      int score = score(s.lower()[i], q);
      if (score == Integer.MIN_VALUE) {
        continue;
      }
      if (best.size() < limit) {
        best.add(new Scored(s.paths()[i], score));
      } else if (score >= best.peek().score()) {
        Scored candidate = new Scored(s.paths()[i], score);
        if (better.compare(candidate, best.peek()) > 0) {
          best.poll();
          best.add(candidate);
        }
      }
    }
    List<Scored> sorted = new ArrayList<>(best);
    sorted.sort(better.reversed());
    return sorted.stream().map(Scored::path).toList();
  }

  private record Scored(String path, int score) {}

  /** How well {@code query} matches {@code path} (both lower case); {@link Integer#MIN_VALUE} when it does not. */
  static int score(String path, String query) {
    int nameStart = path.lastIndexOf('/', path.length() - 2) + 1;
    int score = 0;
    int at = 0;
    int previous = -2;
    for (int qi = 0; qi < query.length(); qi++) {
      char c = query.charAt(qi);
      int found = path.indexOf(c, at);
      if (found < 0) {
        return Integer.MIN_VALUE;
      }
      if (found == previous + 1) {
        score += 5; // in a row
      }
      if (found == 0 || "/_-. ".indexOf(path.charAt(found - 1)) >= 0) {
        score += 8; // at a word's start
      }
      if (found >= nameStart) {
        score += 3; // in the file name
      }
      previous = found;
      at = found + 1;
    }
    if (path.startsWith(query, nameStart)) {
      score += 20;
    }
    if (path.contains(query)) {
      score += 10;
    }
    return score - path.length() / 8;
  }
}
