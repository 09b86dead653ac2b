package dev.waymark.core.checkpoint.lib;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
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
import org.slf4j.LoggerFactory;

/**
 * What {@code lstat} says of one entry, as git's index keeps it: two equal stats mean the entry
 * did not change (unless it is racily clean). The change time counts, so a same-size rewrite that
 * puts the old modification time back is still seen.
 *
 * @param kind regular, executable or symlink; {@link FileKind#ABSENT} for a directory or a special file
 * @param mode the full st_mode (type and permission bits)
 */
public record FileStat(FileKind kind, boolean directory, long size, long mtimeNanos, long ctimeNanos, long inode, int mode) {
  public static final FileStat MISSING = new FileStat(FileKind.ABSENT, false, 0, 0, 0, 0, 0);
  private static final String UNIX_ATTRIBUTES = "unix:mode,ino,ctime,size,lastModifiedTime";
  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFREG = 0100000;
  private static final int S_IFLNK = 0120000;
  private static final boolean UNIX = detectUnixView();

  /** A file modified this close to a scan may change again without its stat changing. */
  public static final long RACY_MILLIS = 2_000;

  /** The entry at {@code file}, never following a link; {@link #MISSING} when there is none. */
  public static FileStat read(Path file) throws IOException {
    try {
      if (LstatFields.TYPE != null) {
        Object a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.getClass() == LstatFields.TYPE) {
          return LstatFields.of(a);
        }
      }
      if (UNIX) {
        return fromMap(file);
      }
      return of(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    } catch (NoSuchFileException | NotDirectoryException gone) {
      return MISSING;
    } catch (FileSystemException e) {
      return missingBelowAFile(file, e);
    }
  }

  /**
   * ENOTDIR, which the JDK reports as a plain {@link FileSystemException} (its text is the C
   * library's, in the user's language): a path below what is now a file does not exist.
   */
  private static FileStat missingBelowAFile(Path file, FileSystemException e) throws FileSystemException {
    Path parent = file.getParent();
    if (e instanceof AccessDeniedException || parent == null || Files.isDirectory(parent)) {
      throw e;
    }
    return MISSING;
  }

  /** {@link #read} through the public attribute map only (a test compares the two). */
  static FileStat readFromMap(Path file) throws IOException {
    try {
      return fromMap(file);
    } catch (NoSuchFileException | NotDirectoryException gone) {
      return MISSING;
    } catch (FileSystemException e) {
      return missingBelowAFile(file, e);
    }
  }

  private static FileStat fromMap(Path file) throws IOException {
    Map<String, Object> a = Files.readAttributes(file, UNIX_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
    return ofMode((Integer) a.get("mode"), (Long) a.get("size"), nanos((FileTime) a.get("lastModifiedTime")),
        nanos((FileTime) a.get("ctime")), (Long) a.get("ino"));
  }

  private static FileStat ofMode(int mode, long size, long mtimeNanos, long ctimeNanos, long inode) {
    int type = mode & S_IFMT;
    FileKind kind = type == S_IFLNK ? FileKind.SYMLINK
        : type == S_IFREG ? ((mode & 0100) != 0 ? FileKind.EXECUTABLE : FileKind.REGULAR)
        : FileKind.ABSENT;
    return new FileStat(kind, type == S_IFDIR, size, mtimeNanos, ctimeNanos, inode, mode);
  }

  /** Whether this platform gives change times and inodes ("unix" attributes). */
  static boolean unixAttributes() {
    return UNIX;
  }

  /** Whether {@link #read} takes the fast path: the JDK's own stat result, read field by field. */
  static boolean readsFields() {
    return LstatFields.TYPE != null;
  }

  /**
   * The fields of the JDK's own {@code lstat} result. The public way to a change time and an inode
   * is a map of boxed values made per call (about 1.6 KB a file); a fresh JVM's first walk of
   * 100,000 files spent a good part of its time and collections on those. Reading them needs the
   * package opened to us: the jar's manifest does ({@code Add-Opens}), as do the test and benchmark
   * runs ({@code --add-opens java.base/sun.nio.fs=ALL-UNNAMED}); without that, or on a JDK whose
   * fields are not these, {@link #TYPE} is null and the map is used.
   */
  private static final class LstatFields {
    static final Class<?> TYPE;
    private static final VarHandle MODE;
    private static final VarHandle INO;
    private static final VarHandle SIZE;
    private static final VarHandle MTIME_SEC;
    private static final VarHandle MTIME_NSEC;
    private static final VarHandle CTIME_SEC;
    private static final VarHandle CTIME_NSEC;

    static {
      Class<?> type = null;
      VarHandle[] h = new VarHandle[7];
      if (UNIX) {
        try {
          Class<?> c = Class.forName("sun.nio.fs.UnixFileAttributes");
          MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(c, MethodHandles.lookup());
          h[0] = lookup.findVarHandle(c, "st_mode", int.class);
          String[] longs = {"st_ino", "st_size", "st_mtime_sec", "st_mtime_nsec", "st_ctime_sec", "st_ctime_nsec"};
          for (int i = 0; i < longs.length; i++) {
            h[i + 1] = lookup.findVarHandle(c, longs[i], long.class);
          }
          type = c;
        } catch (ReflectiveOperationException | RuntimeException closed) {
          type = null; // not opened to us (IllegalAccessException, InaccessibleObjectException), or other fields
        }
      }
      MODE = h[0];
      INO = h[1];
      SIZE = h[2];
      MTIME_SEC = h[3];
      MTIME_NSEC = h[4];
      CTIME_SEC = h[5];
      CTIME_NSEC = h[6];
      TYPE = type != null && agreesWithMap(type) ? type : null;
      if (UNIX && TYPE == null) {
        LoggerFactory.getLogger(FileStat.class).info("file stats go through the JDK's attribute map, which is slower on "
            + "large projects: start Waymark with java -jar, or add --add-opens java.base/sun.nio.fs=ALL-UNNAMED");
      }
    }

    static FileStat of(Object a) {
      return ofMode((int) MODE.get(a), (long) SIZE.get(a),
          (long) MTIME_SEC.get(a) * 1_000_000_000L + (long) MTIME_NSEC.get(a),
          (long) CTIME_SEC.get(a) * 1_000_000_000L + (long) CTIME_NSEC.get(a), (long) INO.get(a));
    }

    /** A JDK whose fields mean something else must not give wrong stats: checked once against the map. */
    private static boolean agreesWithMap(Class<?> type) {
      try {
        Path here = Path.of(System.getProperty("java.home"));
        Object a = Files.readAttributes(here, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.getClass() == type && of(a).equals(fromMap(here));
      } catch (IOException | RuntimeException e) {
        return false;
      }
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

  public boolean isFile() {
    return kind != FileKind.ABSENT;
  }

  /** The permission bits of a regular file, as {@link FileVersion#mode()}; none for a link or where modes are unknown. */
  public int permissionBits() {
    return UNIX && (kind == FileKind.REGULAR || kind == FileKind.EXECUTABLE) ? mode & 07777 : FileVersion.NO_MODE;
  }

  /**
   * Whether a write may have left this stat unchanged: it was seen within {@link #RACY_MILLIS} of
   * its modification time, which file systems keep in coarse ticks (git's "racily clean").
   */
  public boolean racy(long seenAtMillis) {
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
