package dev.waymark.core.layer;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One change a command made, as its upper directory shows it.
 *
 * @param path project-relative, {@code /}-separated
 * @param kind what the path becomes
 * @param source the file or link in the upper directory that holds the new version; null for a deletion
 * @param mode the permission bits of a file or directory ({@code -1} for links and deletions)
 * @param deletedWith for a deletion, the path whose whiteout or opaque directory (what the command
 *     itself deleted or emptied) it follows from: the path itself, or one above it, whose entries
 *     were listed as the project has them at the apply, not as the command saw them; null otherwise
 */
public record LayerChange(String path, Kind kind, Path source, int mode, String deletedWith) {
  /** What a path becomes. */
  public enum Kind {
    /** A regular file, with its content and mode in {@link #source()}. */
    FILE,
    /** A symbolic link; its target is {@link #source()}'s. */
    SYMLINK,
    /** A directory (new, replacing a file, or with a new mode); its entries are changes of their own. */
    DIRECTORY,
    /** Gone: a file, link or (once emptied) directory the command deleted. */
    DELETED
  }

  public LayerChange(String path, Kind kind, Path source, int mode) {
    this(path, kind, source, mode, kind == Kind.DELETED ? path : null);
  }

  public LayerChange {
    Objects.requireNonNull(path);
    Objects.requireNonNull(kind);
    if ((kind == Kind.DELETED) != (source == null)) {
      throw new IllegalArgumentException("a source is needed exactly when the path is not deleted: " + path);
    }
  }

  static LayerChange deleted(String path) {
    return new LayerChange(path, Kind.DELETED, null, -1);
  }

  /** {@code path} deleted as what the lower holds below {@code with}, which the command deleted or emptied. */
  static LayerChange deleted(String path, String with) {
    return new LayerChange(path, Kind.DELETED, null, -1, with);
  }
}
