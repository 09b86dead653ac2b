package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files a restore takes out of the project, moved into the store rather than deleted, so that a
 * later restore of the same content (a redo after an undo) moves them back. Creating many files
 * right after deleting as many is what file systems are slowest at (seconds per 10,000 on ext4
 * with online discard); a rename is not.
 *
 * <p>Only what the latest restore took out is kept: a restore that changed files drops what
 * earlier ones set aside, and so does closing the store. A file is kept only if it is still,
 * after the move, what the restore checked it to be; it is put back only if nothing touched it
 * since, and then with a new modification time, as any write would give it. Where the store is
 * on another file system than the project, nothing is kept and files are deleted as before.
 */
public final class SetAside implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SetAside.class);
  private static final String LOCK = "held.lock";
  /** Bytes kept at most: beyond this, a restore deletes as before (the disk is the user's). */
  static final long MAX_BYTES = 1L << 30;
  /** Files kept at most: each costs a little memory while kept. */
  static final long MAX_FILES = 200_000;

  private record Content(FileKind kind, ObjectId blob) {}

  private record Kept(Path file, FileStamp stamp, long size, int mode, long generation) {}

  private final Path dir;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final long maxBytes;
  private final long maxFiles;
  private final Map<Content, Deque<Kept>> kept = new ConcurrentHashMap<>();
  private final AtomicLong names = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong files = new AtomicLong();
  private final AtomicLong generation = new AtomicLong();
  private volatile boolean usable = true;
  private volatile boolean linkable = true;
  private volatile boolean countsLinks = true;

  private SetAside(Path dir, FileChannel lockChannel, FileLock lock, long maxBytes, long maxFiles) {
    this.dir = dir;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.maxBytes = maxBytes;
    this.maxFiles = maxFiles;
  }

  /**
   * A new set-aside directory under {@code parent}, held by this store until it closes; the
   * directories stores that died left there are deleted in the background.
   */
  public static SetAside open(Path parent) throws IOException {
    return open(parent, MAX_BYTES, MAX_FILES);
  }

  public static SetAside open(Path parent, long maxBytes, long maxFiles) throws IOException {
    WaymarkHome.createPrivateDirectories(parent);
    Path dir = Files.createTempDirectory(parent, "aside-");
    FileChannel channel = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock = channel.lock();
    Thread sweeper = new Thread(() -> sweep(parent, dir), "waymark-aside-sweep");
    sweeper.setDaemon(true);
    sweeper.start();
    return new SetAside(dir, channel, lock, maxBytes, maxFiles);
  }

  /** Starts a restore's writes: what it sets aside outlives the restores before it. */
  long begin() {
    return generation.incrementAndGet();
  }

  /**
   * Moves the file at {@code file}, which the restore checked ({@code checked}) to hold
   * {@code holds}, out of the project. {@link Taken#NOT_KEPT}, with the file where it was, when nothing is kept
   * (not a regular file, too much kept, another file system) and the caller deletes it.
   * {@link Taken#CHANGED} when it turned out to have been changed after the check: it is put back
   * and the restore must stop, as for any file changed under it.
   */
  public Taken takeOut(Path file, FileVersion holds, FileStamp checked, long checkedAt, ShadowRepository hasher)
      throws IOException {
    if (!keepable(holds, checked)) {
      return Taken.NOT_KEPT;
    }
    Path aside = nextName();
    try {
      Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      usable = false;
      LOG.info("the store is on another file system than the project: a restore deletes files instead of keeping them for a redo");
      return Taken.NOT_KEPT;
    } catch (NoSuchFileException e) {
      return gone(); // or the file is gone already: the caller's delete finds nothing to do
    }
    FileStamp now = FileStamp.of(aside);
    if (!stillAsChecked(aside, now, holds, checked, checkedAt, hasher)) {
      Files.move(aside, file, StandardCopyOption.ATOMIC_MOVE);
      return Taken.CHANGED;
    }
    return keep(aside, now, holds);
  }

  /**
   * Keeps the file at {@code file}, which a restore is about to replace and checked to hold
   * {@code holds}, by a second hard link, so that the replacement does not free it. As
   * {@link #takeOut}, but the file stays where it is.
   */
  public Taken keepReplaced(Path file, FileVersion holds, FileStamp checked, long checkedAt, ShadowRepository hasher)
      throws IOException {
    if (!linkable || !keepable(holds, checked)) {
      return Taken.NOT_KEPT;
    }
    Path aside = nextName();
    try {
      Files.createLink(aside, file);
    } catch (NoSuchFileException e) {
      return gone();
    } catch (FileSystemException | UnsupportedOperationException e) {
      String why = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.toString();
      if (e instanceof UnsupportedOperationException || why.toLowerCase(Locale.ROOT).contains("cross-device")) {
        linkable = false; // another file system, or none with hard links: no file will do
        LOG.info("files a restore replaces cannot be linked into {} ({}): they are not kept for a redo", dir, why);
      } else {
        LOG.debug("{} is not kept for a redo: {}", file, why); // say, another user's file (protected_hardlinks)
      }
      return Taken.NOT_KEPT;
    }
    FileStamp now = FileStamp.of(aside);
    if (!stillAsChecked(aside, now, holds, checked, checkedAt, hasher)) {
      Files.deleteIfExists(aside);
      return Taken.CHANGED;
    }
    return keep(aside, now, holds);
  }

  private boolean keepable(FileVersion holds, FileStamp checked) {
    return usable && isFile(holds) && checked != null && checked.exists() && !checked.directory()
        && bytes.get() + checked.size() <= maxBytes && files.get() < maxFiles;
  }

  private Path nextName() {
    return dir.resolve(Long.toString(names.incrementAndGet()));
  }

  private Taken gone() {
    if (!Files.isDirectory(dir)) {
      usable = false;
      LOG.warn("the set-aside directory {} is gone: restores delete and replace files as before", dir);
    }
    return Taken.NOT_KEPT;
  }

  /** Whether {@code aside} (stamped {@code now}) is still the file the restore checked: its stamp, and its bytes when the stamp cannot tell. */
  private static boolean stillAsChecked(Path aside, FileStamp now, FileVersion holds, FileStamp checked,
      long checkedAt, ShadowRepository hasher) throws IOException {
    if (!now.equals(checked)) {
      return false;
    }
    // written in the same tick as the check: only its bytes tell
    return !now.racy(checkedAt) || hasher.hash(aside, now.size()).equals(holds.blob());
  }

  private Taken keep(Path aside, FileStamp stamp, FileVersion holds) {
    bytes.addAndGet(stamp.size());
    files.incrementAndGet();
    kept.computeIfAbsent(new Content(holds.kind(), holds.blob()), k -> new ConcurrentLinkedDeque<>())
        .add(new Kept(aside, stamp, stamp.size(), holds.mode(), generation.get()));
    return Taken.KEPT;
  }

  /** What {@link #takeOut} or {@link #keepReplaced} did. */
  public enum Taken { KEPT, NOT_KEPT, CHANGED }

  /**
   * Moves a kept file holding {@code version} to {@code target} (whose directory exists), with
   * {@code version}'s mode and the current time; false when none is kept, and the caller writes.
   */
  public boolean putIn(Path target, FileVersion version) throws IOException {
    Deque<Kept> candidates = isFile(version) ? kept.get(new Content(version.kind(), version.blob())) : null;
    if (candidates == null) {
      return false;
    }
    for (Kept candidate = candidates.pollLast(); candidate != null; candidate = candidates.pollLast()) {
      bytes.addAndGet(-candidate.size());
      files.decrementAndGet();
      FileStamp now;
      try {
        now = FileStamp.of(candidate.file());
      } catch (NoSuchFileException gone) {
        continue;
      }
      if (!now.equals(candidate.stamp()) || links(candidate.file()) != 1) {
        // touched while kept, or another name still shares it (a replacement that failed after
        // the link, a user's own hard link): putting it back would change what that name holds too
        Files.deleteIfExists(candidate.file());
        continue;
      }
      Files.move(candidate.file(), target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      if (version.hasMode() && candidate.mode() != version.mode()) {
        FileModes.set(target, version.mode());
      }
      Files.setLastModifiedTime(target, FileTime.fromMillis(System.currentTimeMillis()));
      return true;
    }
    return false;
  }

  /** After a restore that changed files: what earlier restores set aside and this one did not use is deleted. */
  void dropBefore(long restoreGeneration) {
    List<Path> drop = new ArrayList<>();
    for (Deque<Kept> deque : kept.values()) {
      deque.removeIf(k -> {
        if (k.generation() < restoreGeneration) {
          drop.add(k.file());
          bytes.addAndGet(-k.size());
          files.decrementAndGet();
          return true;
        }
        return false;
      });
    }
    kept.values().removeIf(Deque::isEmpty);
    if (drop.isEmpty()) {
      return;
    }
    // off the restore's path: many deletes are quick, but the user is waiting on the restore
    Thread deleter = new Thread(() -> {
      for (Path file : drop) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          LOG.debug("could not delete the set-aside file {}", file, e);
        }
      }
    }, "waymark-aside-drop");
    deleter.setDaemon(true);
    deleter.start();
  }

  /** How many names the file has; 1 where the system cannot tell, and then no link of ours made a second. */
  private int links(Path file) throws IOException {
    if (!countsLinks) {
      return 1;
    }
    try {
      return ((Number) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue();
    } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
      countsLinks = false;
      linkable = false; // a second name could not be seen: replaced files are no longer linked
      return 1;
    }
  }

  private static boolean isFile(FileVersion version) {
    return version.kind() == FileKind.REGULAR || version.kind() == FileKind.EXECUTABLE;
  }

  /** How many files are kept. */
  public int size() {
    return kept.values().stream().mapToInt(Deque::size).sum();
  }

  @Override
  public void close() {
    kept.clear();
    try {
      lock.release();
      lockChannel.close();
      deleteTree(dir);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not delete the set-aside files in {}", dir, e);
    }
  }

  /** Deletes the set-aside directories under {@code parent} that no living store holds. */
  private static void sweep(Path parent, Path own) {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, "aside-*")) {
      for (Path other : dirs) {
        if (!other.equals(own) && unheld(other)) {
          deleteTree(other);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("could not sweep the set-aside files in {}", parent, e);
    }
  }

  private static boolean unheld(Path dir) throws IOException {
    if (Files.getLastModifiedTime(dir).toMillis() > System.currentTimeMillis() - 60_000) {
      return false; // perhaps a store opening right now, between making its directory and locking it
    }
    Path lockFile = dir.resolve(LOCK);
    if (!Files.exists(lockFile)) {
      return true;
    }
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock taken = channel.tryLock();
      if (taken == null) {
        return false;
      }
      taken.release();
      return true;
    } catch (OverlappingFileLockException heldHere) {
      return false;
    }
  }

  /** Deletes a set-aside directory: it holds files only (its removed files and its lock). */
  private static void deleteTree(Path dir) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        Files.deleteIfExists(file); // a drop running alongside may have taken it already
      }
    } catch (NoSuchFileException gone) {
      return;
    }
    Files.deleteIfExists(dir);
  }
}
