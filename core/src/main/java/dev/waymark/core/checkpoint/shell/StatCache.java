package dev.waymark.core.checkpoint.shell;

import static dev.waymark.core.checkpoint.shell.StatCacheFormat.checked;
import static dev.waymark.core.checkpoint.shell.StatCacheFormat.readEntry;
import static dev.waymark.core.checkpoint.shell.StatCacheFormat.readPath;
import static dev.waymark.core.checkpoint.shell.StatCacheFormat.readStat;
import static dev.waymark.core.checkpoint.shell.StatCacheFormat.withChecksum;
import static dev.waymark.core.checkpoint.shell.StatCacheFormat.writeEntry;
import static dev.waymark.core.checkpoint.shell.StatCacheFormat.writeStat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.ExclusiveFile;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stat cache of one project, kept in the store like git keeps its index: for each file the
 * shell change tracker saw, its stat data and where its content is (a blob in the shadow
 * repository, or in the user's own repository when the user's index vouched for it).
 *
 * <p>On disk: a base file, rewritten atomically (temporary file, rename), and beside it an
 * append-only delta of the entries changed since, so that saving after a command costs what the
 * command changed, not the size of the project (git's split index does the same). Each part has a
 * checksum and names the generation it follows; a damaged or foreign base is dropped and rebuilt
 * (one read of the project, never a wrong answer), and a delta record that does not follow is
 * ignored with everything after it.
 *
 * <p>It also keeps the stat of the user's git index file its {@link Source#USER_GIT} entries were
 * checked against: while that file is unchanged, a new process need not read the index again.
 */
public final class StatCache {
  private static final Logger LOG = LoggerFactory.getLogger(StatCache.class);
  private static final int MAGIC = 0x574d5343; // "WMSC"
  private static final int VERSION = 2;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Where a cached blob is: the shadow repository, or the user's git objects (copied when needed). */
  public enum Source { SHADOW, USER_GIT }

  /** One file: its stat when seen, its content, and when it was seen (for the racy check). */
  public record Entry(FileStat stat, FileVersion version, Source source, long seenAtMillis) {
    public boolean vouchesFor(FileStat now) {
      return stat.equals(now) && !stat.racy(seenAtMillis);
    }
  }

  private final Path file;
  private final Path delta;
  private Map<String, Entry> entries; // replaced only while it is read, sized for what it holds
  /** Paths put or removed since the last save. */
  private final Set<String> touched = new HashSet<>();
  /** What the files on disk hold, as of the last load or save; 0 when they hold nothing of this cache. */
  private long generation;
  private long deltaBytes;
  /** The user's index file as the user's-git entries agree with it; {@link FileStat#MISSING} when not known. */
  private FileStat indexStamp = FileStat.MISSING;
  private boolean indexStampChanged;
  /** The base and delta files as this cache last read or wrote them: another process wrote them when they differ. */
  private OnDisk onDisk;
  /** The generation of the base file as read; then those the delta's records moved through. */
  private long baseGeneration;
  /** The generations the delta's records moved through when it was read. */
  private final List<Long> followed = new ArrayList<>();

  private record OnDisk(FileStat base, FileStat delta) {}

  private StatCache(Path file, Map<String, Entry> entries) {
    this.file = file;
    this.delta = deltaOf(file);
    this.entries = entries;
  }

  static StatCache empty(Path file) {
    return new StatCache(file, new HashMap<>());
  }

  /** Reads the cache at {@code file} and its delta; an empty cache when the base is missing or damaged. */
  public static StatCache load(Path file) {
    OnDisk seen = onDiskNow(file); // before reading: a write after it makes the next save a new base
    StatCache cache = read(file, 0);
    cache.onDisk = seen;
    return cache;
  }

  /**
   * The cache as it was saved at {@code generation}: from the files in use, or from ones kept aside
   * because a shell journal names it (another process may have rewritten the cache since). Not to be saved.
   */
  public static Optional<StatCache> loadAt(Path file, long generation) {
    List<Path> bases = new ArrayList<>(List.of(file));
    bases.addAll(keptAside(file));
    for (Path base : bases) {
      StatCache cache = read(base, generation);
      if (cache.generation == generation && generation != 0) {
        return Optional.of(cache);
      }
    }
    return Optional.empty();
  }

  private static Path deltaOf(Path base) {
    return base.resolveSibling(base.getFileName() + ".delta");
  }

  /** Reads {@code base} and the records of its delta that follow it, up to {@code stopAt} if it is reached. */
  private static StatCache read(Path base, long stopAt) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(base);
    } catch (NoSuchFileException missing) {
      return empty(base);
    } catch (IOException e) {
      LOG.warn("stat cache {} cannot be read ({}); it is rebuilt", base, e.toString());
      return empty(base);
    }
    StatCache cache = empty(base);
    try {
      ByteBuffer in = checked(bytes, 0, bytes.length);
      if (in.getInt() != MAGIC || in.getInt() != VERSION) {
        LOG.info("stat cache {} is of another format; it is rebuilt", base);
        return empty(base);
      }
      long generation = in.getLong();
      cache.baseGeneration = generation;
      cache.indexStamp = readStat(in);
      int count = in.getInt();
      cache.entries = new HashMap<>(Math.max(16, count * 4 / 3 + 1));
      for (int i = 0; i < count; i++) {
        cache.entries.put(readPath(in), readEntry(in));
      }
      cache.generation = generation;
    } catch (IOException | RuntimeException e) {
      LOG.warn("stat cache {} is damaged ({}); it is rebuilt", base, e.toString());
      return empty(base);
    }
    if (cache.generation != stopAt) {
      cache.applyDelta(deltaOf(base), stopAt);
    }
    return cache;
  }

  /** Applies the delta records that follow this generation, in order; stops at the first that does not, or at {@code stopAt}. */
  private void applyDelta(Path delta, long stopAt) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(delta);
    } catch (NoSuchFileException missing) {
      return;
    } catch (IOException e) {
      LOG.warn("stat cache delta {} cannot be read ({})", delta, e.toString());
      return;
    }
    int at = 0;
    while (at + 4 <= bytes.length) {
      int length = ByteBuffer.wrap(bytes, at, 4).getInt();
      if (length < 24 || at + 4 + length > bytes.length) {
        break; // cut short by a crash
      }
      try {
        ByteBuffer in = checked(bytes, at + 4, length);
        long follows = in.getLong();
        long next = in.getLong();
        if (follows != generation) {
          break;
        }
        FileStat stamp = readStat(in);
        int count = in.getInt();
        for (int i = 0; i < count; i++) {
          String path = readPath(in);
          if (in.get() != 0) {
            entries.put(path, readEntry(in));
          } else {
            entries.remove(path);
          }
        }
        generation = next;
        followed.add(next);
        indexStamp = stamp;
      } catch (IOException | RuntimeException e) {
        break;
      }
      at += 4 + length;
      if (generation == stopAt) {
        break;
      }
    }
    deltaBytes = at;
  }

  public Entry get(String path) {
    return entries.get(path);
  }

  public void put(String path, Entry entry) {
    if (!entry.equals(entries.put(path, entry))) {
      touched.add(path);
    }
  }

  public void remove(String path) {
    if (entries.remove(path) != null) {
      touched.add(path);
    }
  }

  /** Drops the entries of paths not in {@code paths}. */
  public void retainAll(Set<String> paths) {
    var it = entries.keySet().iterator();
    while (it.hasNext()) {
      String path = it.next();
      if (!paths.contains(path)) {
        it.remove();
        touched.add(path);
      }
    }
  }

  public void clear() {
    touched.addAll(entries.keySet());
    entries.clear();
    indexStamp(FileStat.MISSING);
  }

  public int size() {
    return entries.size();
  }

  public Map<String, Entry> entries() {
    return entries;
  }

  /** Whether the cache holds what the files on disk do not. */
  boolean dirty() {
    return !touched.isEmpty() || generation == 0 || indexStampChanged;
  }

  /** The user's index file that every {@link Source#USER_GIT} entry agrees with; {@link FileStat#MISSING} if unknown. */
  public FileStat indexStamp() {
    return indexStamp;
  }

  public void indexStamp(FileStat stamp) {
    if (!stamp.equals(indexStamp)) {
      indexStamp = stamp;
      indexStampChanged = true;
    }
  }

  /** The generation on disk; a journal names it, so that a recovery compares with exactly this baseline. */
  public long generation() {
    return generation;
  }

  /**
   * Saves what changed since the last save: appended as one delta record while the delta stays
   * small and no other process wrote the files since, else as a new base. The files that hold a
   * generation in {@code inUse} (named by a shell journal) are kept aside rather than replaced. A
   * failure only costs the next process a fuller scan.
   */
  public void save(Supplier<Set<Long>> inUse) {
    save(inUse, null);
  }

  /**
   * {@link #save(Supplier)}, then, still holding the cache's lock, hands {@code underLock} (when
   * not null) the generation now on disk (0 if there is none): a journal written there names a
   * generation that no other process can replace without seeing that journal. When another process
   * wrote the files since this one last did, the cache is written whole first, so that what is
   * named is on disk.
   */
  public void save(Supplier<Set<Long>> inUse, LongConsumer underLock) {
    if (underLock == null && !dirty()) {
      return; // nothing to write, nothing to hand over: no lock taken
    }
    try {
      ExclusiveFile.with(file, () -> {
        boolean elsewhere = generation == 0 || !onDiskNow(file).equals(onDisk);
        boolean saved = true;
        if (dirty() || elsewhere && underLock != null) {
          saved = write(inUse, elsewhere);
        }
        if (underLock != null) {
          underLock.accept(saved ? generation : 0);
        }
        return null;
      });
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not save the stat cache {}: {}", file, e.toString());
    }
  }

  /** Writes what changed, under the lock; false when it could not (the files hold what they held). */
  private boolean write(Supplier<Set<Long>> inUse, boolean elsewhere) {
    long next = RANDOM.nextLong() | 1;
    try {
      boolean small = (deltaBytes + touched.size() * 100L) < Math.max(64 << 10, entries.size() * 10L);
      boolean anyKept = !keptAside(file).isEmpty();
      Set<Long> journaled = anyKept || !small || elsewhere ? inUse.get() : Set.of();
      if (anyKept) {
        dropKept(journaled);
      }
      if (!elsewhere && small) {
        appendDelta(next);
      } else {
        keepAside(journaled);
        writeBase(next);
      }
      onDisk = onDiskNow(file);
      generation = next;
      touched.clear();
      indexStampChanged = false;
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not save the stat cache {}: {}", file, e.toString());
      return false;
    }
  }

  public void save() {
    save(Set::of);
  }

  private static OnDisk onDiskNow(Path file) {
    try {
      return new OnDisk(FileStat.read(file), FileStat.read(deltaOf(file)));
    } catch (IOException e) {
      return new OnDisk(FileStat.MISSING, FileStat.MISSING);
    }
  }

  /** Base files kept aside for a journal, beside {@code file}. */
  private static List<Path> keptAside(Path file) {
    List<Path> kept = new ArrayList<>();
    try (var files = Files.newDirectoryStream(file.getParent(), file.getFileName() + ".kept-*")) {
      for (Path p : files) {
        if (!p.getFileName().toString().endsWith(".delta")) {
          kept.add(p);
        }
      }
    } catch (NoSuchFileException none) {
      return kept;
    } catch (IOException e) {
      LOG.warn("cannot list {}: {}", file.getParent(), e.toString());
    }
    return kept;
  }

  /** Drops the files kept aside earlier that hold no generation in {@code inUse}. */
  private void dropKept(Set<Long> inUse) throws IOException {
    for (Path kept : keptAside(file)) {
      if (Collections.disjoint(generationsIn(kept), inUse)) {
        Files.deleteIfExists(deltaOf(kept));
        Files.deleteIfExists(kept);
      }
    }
  }

  /** Before the files in use are replaced: moves them aside when they hold a generation in {@code inUse}. */
  private void keepAside(Set<Long> inUse) throws IOException {
    Set<Long> here = inUse.isEmpty() ? Set.of() : generationsIn(file);
    if (!Collections.disjoint(here, inUse)) {
      Path kept = file.resolveSibling(file.getFileName() + ".kept-" + Long.toHexString(RANDOM.nextLong()));
      if (Files.exists(delta)) {
        Files.move(delta, deltaOf(kept));
      }
      Files.move(file, kept);
    }
  }

  /** The generations the base {@code base} and its delta hold. */
  private static Set<Long> generationsIn(Path base) {
    StatCache cache = read(base, 0);
    Set<Long> generations = new HashSet<>(cache.followed);
    if (cache.baseGeneration != 0) {
      generations.add(cache.baseGeneration);
    }
    return generations;
  }

  private void appendDelta(long next) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeLong(generation);
    out.writeLong(next);
    writeStat(out, indexStamp);
    out.writeInt(touched.size());
    for (String path : touched) {
      out.writeUTF(path);
      Entry entry = entries.get(path);
      out.writeBoolean(entry != null);
      if (entry != null) {
        writeEntry(out, entry);
      }
    }
    byte[] record = withChecksum(bytes);
    ByteBuffer framed = ByteBuffer.allocate(4 + record.length).putInt(record.length).put(record);
    WaymarkHome.writePrivate(delta, framed.array(), true);
    deltaBytes += framed.capacity();
  }

  private void writeBase(long next) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(entries.size() * 128 + 64);
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeLong(next);
    writeStat(out, indexStamp);
    out.writeInt(entries.size());
    for (var e : entries.entrySet()) {
      out.writeUTF(e.getKey());
      writeEntry(out, e.getValue());
    }
    WaymarkHome.replacePrivate(file, withChecksum(bytes));
    // the old delta follows the old generation: a reader ignores it, and it goes now
    Files.deleteIfExists(delta);
    deltaBytes = 0;
  }
}
