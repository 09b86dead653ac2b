package dev.waymark.core.checkpoint.shell;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

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

  public CommandSlot(Path file) {
    this.file = file;
    this.here = IN_PROCESS.computeIfAbsent(file.toAbsolutePath().normalize(), f -> new Semaphore(1, true));
  }

  /** The mark of the Waymark command this process runs inside, if any (see {@code ShellChangeTracker#insideACommandHere}). */
  public static Optional<String> parentMark() {
    return Optional.ofNullable(System.getenv(CommandMark.VARIABLE)).filter(m -> !m.isEmpty());
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
          noteHolder(channel);
          return Optional.of(new Held(channel, lock));
        }
        if (System.nanoTime() >= deadline) {
          break;
        }
        Thread.sleep(RETRY_MILLIS);
      }
    } catch (IOException e) {
      // no lock file (a read-only store): commands go on without waiting, as before
      LoggerFactory.getLogger(CommandSlot.class).warn("cannot hold {}: {}", file, e.toString());
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

  /** Writes this process's id in the lock file, so that a command waiting for the slot can say whom it waits for. */
  private static void noteHolder(FileChannel channel) {
    try {
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n")
          .getBytes(StandardCharsets.US_ASCII)), 0);
    } catch (IOException e) {
      // only a waiting command's message is the poorer for it
    }
  }

  /** The process that holds the slot, as a waiting command can name it ({@code Wording.slotHolder}). */
  public record Holder(long pid, boolean thisProcess, boolean stopped) {}

  /**
   * Who holds the slot now, as its holder noted in the lock file: empty when that cannot be told
   * (no note, or the noted process is gone). A stopped process ({@code T} in {@code /proc/PID/stat})
   * never gives it back by itself, so that is said.
   */
  public Optional<Holder> holder() {
    long pid;
    try {
      pid = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    if (pid == ProcessHandle.current().pid()) {
      return Optional.of(new Holder(pid, true, false));
    }
    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return Optional.of(new Holder(pid, false, stopped(pid)));
    }
    return Optional.empty();
  }

  /** Whether process {@code pid} is stopped: the state after the command name in {@code /proc/PID/stat} is T or t. */
  static boolean stopped(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"),
          StandardCharsets.ISO_8859_1);
      int end = stat.lastIndexOf(')'); // the command name may hold spaces and parentheses
      char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
      return state == 'T' || state == 't';
    } catch (IOException | RuntimeException e) {
      return false; // no /proc: not said
    }
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
