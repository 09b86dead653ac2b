package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;

/**
 * What {@code lstat} says of one entry, as git's index keeps it: two equal stats mean the entry
 * did not change (unless it is racily clean). The change time counts, so a same-size rewrite that
 * puts the old modification time back is still seen.
 *
 * @param kind regular, executable or symlink; {@link FileKind#ABSENT} for a directory or a special file
 * @param mode the full st_mode (type and permission bits)
 */
record FileStat(FileKind kind, boolean directory, long size, long mtimeNanos, long ctimeNanos, long inode, int mode) {
  static final FileStat MISSING = new FileStat(FileKind.ABSENT, false, 0, 0, 0, 0, 0);
  private static final String UNIX_ATTRIBUTES = "unix:mode,ino,ctime,size,lastModifiedTime";
  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFREG = 0100000;
  private static final int S_IFLNK = 0120000;
  private static final boolean UNIX = detectUnixView();

  /** A file modified this close to a scan may change again without its stat changing. */
  static final long RACY_MILLIS = 2_000;

  /** The entry at {@code file}, never following a link; {@link #MISSING} when there is none. */
  static FileStat read(Path file) throws IOException {
    try {
      if (UNIX) {
        Map<String, Object> a = Files.readAttributes(file, UNIX_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        int type = mode & S_IFMT;
        FileKind kind = type == S_IFLNK ? FileKind.SYMLINK
            : type == S_IFREG ? ((mode & 0100) != 0 ? FileKind.EXECUTABLE : FileKind.REGULAR)
            : FileKind.ABSENT;
        return new FileStat(kind, type == S_IFDIR, (Long) a.get("size"), nanos((FileTime) a.get("lastModifiedTime")),
            nanos((FileTime) a.get("ctime")), (Long) a.get("ino"), mode);
      }
      return of(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    } catch (NoSuchFileException | NotDirectoryException gone) {
      return MISSING;
    }
  }

  /** From attributes already read; without a change time or inode where the platform has none. */
  static FileStat of(BasicFileAttributes a) {
    int permissions = 0;
    if (a instanceof PosixFileAttributes) {
      for (PosixFilePermission p : ((PosixFileAttributes) a).permissions()) {
        permissions |= 1 << (8 - p.ordinal());
      }
    }
    FileKind kind = a.isSymbolicLink() ? FileKind.SYMLINK
        : a.isRegularFile() ? ((permissions & 0100) != 0 ? FileKind.EXECUTABLE : FileKind.REGULAR)
        : FileKind.ABSENT;
    int type = a.isSymbolicLink() ? S_IFLNK : a.isRegularFile() ? S_IFREG : a.isDirectory() ? S_IFDIR : 0;
    long mtime = nanos(a.lastModifiedTime());
    return new FileStat(kind, a.isDirectory(), a.size(), mtime, mtime, 0, type | permissions);
  }

  boolean isFile() {
    return kind != FileKind.ABSENT;
  }

  /** The permission bits of a regular file, as {@link FileVersion#mode()}; none for a link or where modes are unknown. */
  int permissionBits() {
    return UNIX && (kind == FileKind.REGULAR || kind == FileKind.EXECUTABLE) ? mode & 0777 : FileVersion.NO_MODE;
  }

  /**
   * Whether a write may have left this stat unchanged: it was seen within {@link #RACY_MILLIS} of
   * its modification time, which file systems keep in coarse ticks (git's "racily clean").
   */
  boolean racy(long seenAtMillis) {
    return mtimeNanos / 1_000_000 >= seenAtMillis - RACY_MILLIS;
  }

  private static long nanos(FileTime time) {
    var instant = time.toInstant();
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }

  private static boolean detectUnixView() {
    try {
      Files.readAttributes(Path.of("."), UNIX_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
      return true;
    } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
      return false;
    }
  }
}
