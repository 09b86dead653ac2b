package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One shell command at a time on a project, across its tabs and every Waymark process on it. A
 * file's change says nothing of which process made it: two commands that overlap would each take
 * the files the other wrote, and undoing one would delete the other's. So a command waits for the
 * slot before its scan and gives it back after its changes are recorded. A lock file in the store
 * holds it between processes (the system lets it go when a process dies), a semaphore within one.
 */
public final class CommandSlot {
  private static final ConcurrentHashMap<Path, Semaphore> IN_PROCESS = new ConcurrentHashMap<>();
  private static final long RETRY_MILLIS = 25;

  private final Path file;
  private final Semaphore here;

  CommandSlot(Path file) {
    this.file = file;
    this.here = IN_PROCESS.computeIfAbsent(file.toAbsolutePath().normalize(), f -> new Semaphore(1, true));
  }

  /** The mark of the Waymark command this process runs inside, if any (see {@code ShellChangeTracker#insideACommandHere}). */
  static java.util.Optional<String> parentMark() {
    return java.util.Optional.ofNullable(System.getenv(CommandMark.VARIABLE)).filter(m -> !m.isEmpty());
  }

  /** The slot, once no other command holds it, waiting at most {@code waitMillis}; empty if it is still held then. */
  public Optional<Held> take(long waitMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    if (!here.tryAcquire(waitMillis, TimeUnit.MILLISECONDS)) {
      return Optional.empty();
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      while (true) {
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException sameProcess) {
          lock = null; // another store object of this process: wait as for another process
        }
        if (lock != null) {
          return Optional.of(new Held(channel, lock));
        }
        if (System.nanoTime() >= deadline) {
          break;
        }
        Thread.sleep(RETRY_MILLIS);
      }
    } catch (IOException e) {
      // no lock file (a read-only store): commands go on without waiting, as before
      org.slf4j.LoggerFactory.getLogger(CommandSlot.class).warn("cannot hold {}: {}", file, e.toString());
      closeQuietly(channel);
      return Optional.of(new Held(null, null));
    } catch (InterruptedException | RuntimeException e) {
      closeQuietly(channel);
      here.release();
      throw e;
    }
    closeQuietly(channel);
    here.release();
    return Optional.empty();
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closing a lock file
      }
    }
  }

  /** The slot, held until closed (closing twice is harmless). */
  public final class Held implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private Held(FileChannel channel, FileLock lock) {
      this.channel = channel;
      this.lock = lock;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (lock != null) {
          lock.release();
        }
      } catch (IOException ignored) {
        // the channel's close lets it go too
      }
      closeQuietly(channel);
      here.release();
    }
  }
}
