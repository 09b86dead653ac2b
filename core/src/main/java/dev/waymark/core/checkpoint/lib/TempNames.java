package dev.waymark.core.checkpoint.lib;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Names of the temporary files written beside a project file ({@code .<name><suffix>}), kept
 * within the 255 bytes a file name may have: a file whose own name is near that limit gets a
 * shortened name with a hash of the full one, so that it can still be written and restored.
 */
public final class TempNames {
  /** The longest file name (in bytes) the common file systems take (ext4, xfs, btrfs, APFS, NTFS). */
  static final int NAME_MAX = 255;

  /** The suffix of a restore's temporary files, which shell capture never records. */
  public static final String RESTORE_SUFFIX = ".waymark-restore.tmp";

  /** The suffix of the temporary file {@code write_file} writes beside its target before the rename. */
  public static final String WRITE_SUFFIX = ".waymark-write.tmp";

  private TempNames() {}

  /** The temporary file for {@code target}, beside it. */
  public static Path beside(Path target, String suffix) {
    String name = target.getFileName().toString();
    String temp = "." + name + suffix;
    if (utf8Length(temp) <= NAME_MAX) {
      return target.resolveSibling(temp);
    }
    String hash = String.format("~%08x", name.hashCode());
    int room = NAME_MAX - 1 - hash.length() - utf8Length(suffix);
    StringBuilder kept = new StringBuilder();
    int bytes = 0;
    for (int i = 0; i < name.length(); ) {
      int cp = name.codePointAt(i);
      int size = utf8Length(new String(Character.toChars(cp)));
      if (bytes + size > room) {
        break;
      }
      kept.appendCodePoint(cp);
      bytes += size;
      i += Character.charCount(cp);
    }
    return target.resolveSibling("." + kept + hash + suffix);
  }

  private static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
