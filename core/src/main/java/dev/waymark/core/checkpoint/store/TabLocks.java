package dev.waymark.core.checkpoint.store;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tabs one store acts on: one store, in any process, acts on a tab at a time. A claim is an
 * OS file lock on {@code tabs/<tab>.lock}, which the system drops when the process dies (a
 * {@code kill -9} leaves nothing stuck); the file names the holder's process id for the message
 * the next one gets. Thread-safe.
 */
public final class TabLocks {
  private static final Logger LOG = LoggerFactory.getLogger(TabLocks.class);

  /** Lock files held by any store of this process, so that two stores of one process exclude each other too. */
  private static final Set<Path> CLAIMED = ConcurrentHashMap.newKeySet();

  private record TabLock(Path file, FileChannel channel, FileLock lock) {}

  private final Path tabsDir;
  private final Map<String, TabLock> locks = new HashMap<>();
  /** How many trees of this store hold each tab: its lock goes when the last one is released. */
  private final Map<String, Integer> holders = new HashMap<>();

  public TabLocks(Path tabsDir) {
    this.tabsDir = tabsDir;
  }

  /**
   * Makes this store the only one, in any process, that acts on {@code tabId} until each claim
   * is given back ({@link #release}) or {@link #releaseAll}; a second claim of a tab this store
   * holds counts one more holder.
   */
  public void claim(String tabId) {
    synchronized (locks) {
      if (locks.containsKey(tabId)) {
        holders.merge(tabId, 1, Integer::sum);
        return;
      }
      Path file = tabsDir.resolve(tabId + ".lock");
      if (!CLAIMED.add(file)) {
        throw inUse(tabId, ProcessHandle.current().pid());
      }
      FileChannel channel = null;
      try {
        WaymarkHome.createPrivateDirectories(file.getParent());
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
          long holder = -1;
          try {
            holder = Long.parseLong(Files.readString(file).strip());
          } catch (IOException | NumberFormatException unknown) {
            // the holder wrote nothing yet
          }
          throw inUse(tabId, holder);
        }
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        locks.put(tabId, new TabLock(file, channel, lock));
        holders.put(tabId, 1);
      } catch (IOException | RuntimeException e) {
        CLAIMED.remove(file);
        if (channel != null) {
          try {
            channel.close();
          } catch (IOException ignored) {
            // nothing held
          }
        }
        if (e instanceof CheckpointException ce) {
          throw ce;
        }
        throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not lock tab " + tabId + " (" + file + "): " + e.getMessage(), e);
      }
    }
  }

  /**
   * Claims {@code tabId} only if no tree of this store holds it: a tab in use here is refused as
   * one in use by another process is.
   */
  public void claimUnheld(String tabId) {
    synchronized (locks) {
      if (locks.containsKey(tabId)) {
        throw inUse(tabId, ProcessHandle.current().pid());
      }
      claim(tabId);
    }
  }

  /**
   * The process that holds {@code tabId} now when it is another one (its id, -1 when it wrote none
   * yet); empty when no other process does. Looks by taking the lock for an instant.
   */
  public OptionalLong heldElsewhere(String tabId) {
    synchronized (locks) {
      if (locks.containsKey(tabId)) {
        return OptionalLong.empty();
      }
      Path file = tabsDir.resolve(tabId + ".lock");
      if (CLAIMED.contains(file)) {
        return OptionalLong.of(ProcessHandle.current().pid()); // another store of this process
      }
      if (!Files.exists(file)) {
        return OptionalLong.empty();
      }
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        FileLock lock = channel.tryLock();
        if (lock != null) {
          lock.release();
          return OptionalLong.empty();
        }
      } catch (IOException e) {
        return OptionalLong.empty(); // gone meanwhile: no one holds it
      }
      try {
        return OptionalLong.of(Long.parseLong(Files.readString(file).strip()));
      } catch (IOException | NumberFormatException unknown) {
        return OptionalLong.of(-1);
      }
    }
  }

  /** Gives up one claim of {@code tabId}; with the last, another store or process may act on it. */
  public void release(String tabId) {
    synchronized (locks) {
      int left = holders.getOrDefault(tabId, 1) - 1;
      if (left > 0) {
        holders.put(tabId, left);
        return;
      }
      holders.remove(tabId);
      TabLock held = locks.remove(tabId);
      if (held != null) {
        unlock(held);
      }
    }
  }

  /** Gives up every claim (the store closes). */
  public void releaseAll() {
    synchronized (locks) {
      locks.values().forEach(TabLocks::unlock);
      locks.clear();
      holders.clear();
    }
  }

  private static CheckpointException inUse(String tabId, long pid) {
    return new CheckpointException(CheckpointException.Kind.BUSY, "Tab " + tabId + " is in use by process " + (pid < 0 ? "(unknown)" : pid)
        + "; wait until it is done with the tab, or close it there.");
  }

  private static void unlock(TabLock held) {
    try {
      held.lock().release();
      held.channel().close();
    } catch (IOException e) {
      LOG.warn("could not release {}", held.file(), e);
    } finally {
      CLAIMED.remove(held.file());
    }
  }
}
