package dev.waymark.core.checkpoint.lib;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Permission bits as Waymark records them: an int from {@code 0} to {@code 07777} (what git's
 * 100644/100755 cannot hold: 0600, 0700, 0640..., and the setuid, setgid and sticky bits), or
 * {@link FileVersion#NO_MODE}.
 */
public final class FileModes {
  private static final PosixFilePermission[] BITS = PosixFilePermission.values(); // OWNER_READ (0400) first
  private static volatile int newFileMode = -2;

  /** No permission bits recorded ({@link FileVersion#NO_MODE} names the same). */
  public static final int NO_MODE = -1;

  private FileModes() {}

  /** The bits of {@code permissions}. */
  public static int of(Set<PosixFilePermission> permissions) {
    int mode = 0;
    for (PosixFilePermission p : permissions) {
      mode |= 0400 >> p.ordinal();
    }
    return mode;
  }

  /** The permissions of {@code mode}. */
  public static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    for (PosixFilePermission p : BITS) {
      if ((mode & (0400 >> p.ordinal())) != 0) {
        set.add(p);
      }
    }
    return set;
  }

  /** The bits of the file at {@code file} (not followed if a link); {@link FileVersion#NO_MODE} without POSIX modes. */
  public static int read(Path file) throws IOException {
    try {
      return of(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
    } catch (UnsupportedOperationException notPosix) {
      return NO_MODE;
    }
  }

  /**
   * The bits of the file at {@code file} (not followed if a link) with its setuid, setgid and
   * sticky bits, which {@link #read} leaves out: what a checkpoint records, so that a {@code chmod
   * 4755} is undone like any other change. {@link FileVersion#NO_MODE} without POSIX modes.
   */
  public static int readWithSpecialBits(Path file) throws IOException {
    int bits = read(file);
    if (bits == NO_MODE) {
      return bits;
    }
    try {
      return (Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
      return bits;
    }
  }

  /**
   * The mode a file created now gets ({@code 0666} less the process's umask), found once by
   * creating one; {@link FileVersion#NO_MODE} where the file system keeps no modes or none could be made.
   */
  public static int newFileMode() {
    int mode = newFileMode;
    if (mode == -2) {
      try {
        Path dir = Files.createTempDirectory("waymark-umask");
        try {
          Path probe = Files.createFile(dir.resolve("probe"));
          mode = read(probe);
          Files.delete(probe);
        } finally {
          Files.delete(dir);
        }
      } catch (IOException | UnsupportedOperationException e) {
        mode = NO_MODE; // a new file then gets the system's default, and none is recorded
      }
      newFileMode = mode;
    }
    return mode;
  }

  /**
   * The mode a directory created now gets: {@code 0777} less the umask, whose execute bits are
   * taken to follow its read bits (022 gives 0755, 077 gives 0700); {@link FileVersion#NO_MODE}
   * where modes are unknown.
   */
  public static int newDirectoryMode() {
    int file = newFileMode();
    return file == NO_MODE ? NO_MODE : file | ((file & 0444) >> 2);
  }

  /**
   * Creates {@code file}, which must not exist, open for writing, with permission bits
   * {@code mode} less the umask from its first moment ({@link FileVersion#NO_MODE}: the file
   * system's default): one {@code open(O_CREAT|O_EXCL)}, so content never sits in a file wider
   * than {@code mode}, and a read-only mode still gives a writable channel.
   */
  public static FileChannel create(Path file, int mode) throws IOException {
    Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    if (mode != NO_MODE) {
      try {
        return FileChannel.open(file, options, PosixFilePermissions.asFileAttribute(permissions(mode)));
      } catch (UnsupportedOperationException notPosix) {
        // no modes on this file system
      }
    }
    return FileChannel.open(file, options);
  }

  /**
   * Sets exactly {@code mode} (the umask may have taken bits off at creation), setuid, setgid and
   * sticky bits included; nothing where modes are unknown.
   */
  public static void set(Path file, int mode) throws IOException {
    if (mode == NO_MODE) {
      return;
    }
    if ((mode & 07000) != 0) {
      try {
        Files.setAttribute(file, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS); // a chmod: POSIX permissions cannot say these
        return;
      } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
        throw new IOException("cannot set the setuid, setgid or sticky bits of " + file + " (mode "
            + octal(mode) + ") on this file system");
      }
    }
    try {
      Files.setPosixFilePermissions(file, permissions(mode));
    } catch (UnsupportedOperationException notPosix) {
      // no modes on this file system
    }
  }

  /** {@code mode} as recorded for a version of {@code kind}: none for a link or an absent file. */
  static int forKind(FileKind kind, int mode) {
    if (kind == FileKind.ABSENT || kind == FileKind.SYMLINK || mode < 0) {
      return NO_MODE;
    }
    if (mode > 07777) {
      throw new IllegalArgumentException("not permission bits: " + Integer.toOctalString(mode));
    }
    if ((kind == FileKind.EXECUTABLE) != ((mode & 0100) != 0)) {
      throw new IllegalArgumentException("mode " + octal(mode) + " does not fit a file that is " + kind);
    }
    return mode;
  }

  /** The kind of a regular file with these bits: executable when its owner may run it. */
  public static FileKind kindOf(int mode) {
    return (mode & 0100) != 0 ? FileKind.EXECUTABLE : FileKind.REGULAR;
  }

  /** {@code 0600}, as {@code chmod} takes it. */
  public static String octal(int mode) {
    return String.format("%04o", mode);
  }

  /** What {@link #octal} wrote; {@link FileVersion#NO_MODE} for nothing (older manifests and sessions). */
  public static int parse(String octal) {
    if (octal == null || octal.isEmpty()) {
      return NO_MODE;
    }
    int mode = Integer.parseInt(octal, 8);
    if (mode < 0 || mode > 07777) {
      throw new IllegalArgumentException("not permission bits: " + octal);
    }
    return mode;
  }

  /**
   * The mode to write a version of {@code kind} with over {@code existing} (null: no file there)
   * when none was recorded, as before modes were: the existing file's bits with the execute bits
   * following the kind, else {@code 0644} or {@code 0755}.
   */
  public static int fallback(FileKind kind, Path existing) throws IOException {
    int mode = existing != null && Files.isRegularFile(existing, LinkOption.NOFOLLOW_LINKS) ? read(existing) : 0644;
    if (mode < 0) {
      return mode;
    }
    if (kind == FileKind.EXECUTABLE) {
      mode |= 0100 | (mode & 0040) >> 2 | (mode & 0004) >> 2;
    } else {
      mode &= ~0111;
    }
    return mode;
  }
}
