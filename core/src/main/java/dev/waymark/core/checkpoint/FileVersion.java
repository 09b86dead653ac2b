package dev.waymark.core.checkpoint;

import java.util.Objects;
import org.eclipse.jgit.lib.ObjectId;

/**
 * One stored version of a path: its kind and, unless absent, the id of its blob in the shadow
 * repository. Two versions are equal exactly when their bytes and kind are equal.
 */
public record FileVersion(FileKind kind, ObjectId blob) {
  public static final FileVersion ABSENT = new FileVersion(FileKind.ABSENT, null);

  public FileVersion {
    Objects.requireNonNull(kind);
    if ((kind == FileKind.ABSENT) != (blob == null)) {
      throw new IllegalArgumentException("a blob id is needed exactly when the file exists");
    }
    blob = blob == null ? null : blob.copy();
  }

  public boolean exists() {
    return kind != FileKind.ABSENT;
  }

  @Override
  public String toString() {
    return exists() ? kind + ":" + blob.name() : "absent";
  }
}
