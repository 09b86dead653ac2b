package dev.waymark.core.checkpoint.lib;

import org.eclipse.jgit.lib.FileMode;

/** What a path holds at one moment: nothing, a plain file, an executable file or a symbolic link. */
public enum FileKind {
  ABSENT,
  REGULAR,
  EXECUTABLE,
  SYMLINK;

  public FileMode gitMode() {
    switch (this) {
      case REGULAR:
        return FileMode.REGULAR_FILE;
      case EXECUTABLE:
        return FileMode.EXECUTABLE_FILE;
      case SYMLINK:
        return FileMode.SYMLINK;
      default:
        throw new IllegalStateException("an absent file has no git mode");
    }
  }
}
