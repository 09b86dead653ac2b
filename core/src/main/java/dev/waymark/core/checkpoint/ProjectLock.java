package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Makes restores and the recovery of interrupted ones exclusive for one project, across the tabs
 * of this process and across Waymark processes, so that a journal is only ever read back once
 * the process that wrote it has gone.
 */
final class ProjectLock {
  private final ReentrantLock inProcess = new ReentrantLock();
  private final Path lockFile;

  ProjectLock(Path lockFile) {
    this.lockFile = lockFile;
  }

  <T> T run(Callable<T> work) {
    inProcess.lock();
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
         FileLock ignored = channel.lock()) {
      return work.call();
    } catch (CheckpointException e) {
      throw e;
    } catch (IOException e) {
      throw new CheckpointException("Could not lock " + lockFile + ": " + e.getMessage(), e);
    } catch (Exception e) {
      throw new CheckpointException(e.getMessage(), e);
    } finally {
      inProcess.unlock();
    }
  }
}
