package dev.waymark.core.checkpoint.lib;

import java.util.Objects;
import org.eclipse.jgit.lib.ObjectId;

/**
 * One stored version of a path: its kind, unless absent the id of its blob in the shadow
 * repository, and the permission bits it had ({@code 0600}, {@code 0755}...) when they were
 * recorded. Two versions are equal exactly when their bytes, kind and mode are equal.
 *
 * @param mode the permission bits ({@code 0} to {@code 07777}, setuid, setgid and sticky included), or {@link #NO_MODE} for a link, an
 *     absent file, and a version recorded before modes were (it is then written as git's 100644
 *     or 100755 would be: the mode of the file it replaces, else {@code 0644} or {@code 0755})
 */
public record FileVersion(FileKind kind, ObjectId blob, int mode) {
  /** No permission bits recorded. */
  public static final int NO_MODE = FileModes.NO_MODE;
  public static final FileVersion ABSENT = new FileVersion(FileKind.ABSENT, null, NO_MODE);

  public FileVersion {
    Objects.requireNonNull(kind);
    if ((kind == FileKind.ABSENT) != (blob == null)) {
      throw new IllegalArgumentException("a blob id is needed exactly when the file exists");
    }
    blob = blob == null ? null : blob.copy();
    mode = FileModes.forKind(kind, mode);
  }

  /** A version whose mode was not recorded. */
  public FileVersion(FileKind kind, ObjectId blob) {
    this(kind, blob, NO_MODE);
  }

  public boolean exists() {
    return kind != FileKind.ABSENT;
  }

  public boolean hasMode() {
    return mode != NO_MODE;
  }

  /** The same content and kind, without regard to the mode. */
  public boolean sameContent(FileVersion other) {
    return kind == other.kind && Objects.equals(blob, other.blob);
  }

  @Override
  public String toString() {
    return exists() ? kind + ":" + blob.name() + (hasMode() ? ":" + FileModes.octal(mode) : "") : "absent";
  }
}
