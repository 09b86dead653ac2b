package dev.waymark.core.checkpoint.store;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Makes restores and the recovery of interrupted ones exclusive for one project, across the tabs
 * of this process and across Waymark processes, so that a journal is only ever read back once
 * the process that wrote it has gone.
 */
public final class ProjectLock {
  // One per lock file, shared by every store of the project in this JVM: a JVM may hold a file lock only once.
  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

  private final ReentrantLock inProcess;
  private final Path lockFile;

  public ProjectLock(Path lockFile) {
    this.lockFile = lockFile.toAbsolutePath().normalize();
    this.inProcess = IN_PROCESS.computeIfAbsent(this.lockFile, p -> new ReentrantLock());
  }

  public <T> T run(Callable<T> work) {
    inProcess.lock();
    try {
      FileChannel channel = null;
      FileLock held;
      try {
        channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        held = channel.lock();
      } catch (IOException e) {
        closeQuietly(channel);
        throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not lock " + lockFile + ": " + e.getMessage(), e);
      }
      // What the work throws is its own failure, not the lock's.
      try (FileChannel open = channel) {
        try {
          return work.call();
        } finally {
          held.release();
        }
      } catch (CheckpointException e) {
        throw e;
      } catch (FileSystemException e) {
        throw new CheckpointException(CheckpointException.Kind.STORE_IO, e.getFile() + ": " + (e instanceof AccessDeniedException
            ? "permission denied" : e.getReason() == null ? e.getClass().getSimpleName() : e.getReason()), e);
      } catch (Exception e) {
        throw new CheckpointException(CheckpointException.Kind.STORE_IO, String.valueOf(e.getMessage()), e);
      }
    } finally {
      inProcess.unlock();
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // it held nothing
      }
    }
  }
}
