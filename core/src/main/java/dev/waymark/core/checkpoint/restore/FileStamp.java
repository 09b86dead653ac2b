package dev.waymark.core.checkpoint.restore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * What {@code stat} says of a path: cheap to take again, and different after any write, delete
 * or replacement, so a restore can tell that a file changed after it was checked.
 */
public record FileStamp(boolean exists, boolean directory, long size, FileTime modified, Object fileKey) {
  public static final FileStamp ABSENT = new FileStamp(false, false, 0, null, null);

  /** The stamp of {@code file}, which must exist. */
  public static FileStamp of(Path file) throws IOException {
    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    return new FileStamp(true, a.isDirectory(), a.size(), a.lastModifiedTime(), a.fileKey());
  }

  /**
   * Whether a write could leave this stamp as it is: file times tick in steps of a few
   * milliseconds, so a same-size rewrite soon after the last one may keep the same time (git's
   * "racy clean" case). Such a file is compared by content instead.
   */
  public boolean racy(long checkedAtMillis) {
    return modified != null && modified.toMillis() >= checkedAtMillis - 1000;
  }
}
