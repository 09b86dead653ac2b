package dev.waymark.core.checkpoint.lib;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The one rule for a project-relative path the engine records, restores or shows: {@code /}
 * separators, no empty, {@code .} or {@code ..} component, not absolute, no NUL, no {@code .git}
 * component in any case, and, against a project on disk, no link in any parent. Paths read from a
 * session file, a checkpoint's manifest or a bundle are untrusted and pass here before they are used.
 */
public final class ProjectPaths {
  private ProjectPaths() {}

  /** {@code path} when it is a project-relative file path; else a {@link CheckpointException} (refused) naming it. */
  public static String check(String path) {
    Objects.requireNonNull(path, "path");
    if (path.isEmpty() || path.startsWith("/") || path.endsWith("/") || path.indexOf('\0') >= 0) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Not a project-relative file path: " + shown(path));
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, "Not a project-relative file path: " + shown(path));
      }
    }
    for (String segment : path.split("/", -1)) {
      // Any .git, a nested repository's too, in any case: JGit refuses to store such a path, and
      // git runs what is written there (hooks, config).
      if (segment.equalsIgnoreCase(".git")) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, "Waymark never records or writes the project's own .git, nor a nested "
            + "repository's: " + shown(path));
      }
    }
    return path;
  }

  /** {@code path} quoted, its control characters escaped, so that a message naming it stays one line. */
  public static String shown(String path) {
    StringBuilder quoted = new StringBuilder("\"");
    for (char c : path.toCharArray()) {
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
        quoted.append(String.format("\\u%04x", (int) c));
      } else {
        quoted.append(c);
      }
    }
    return quoted.append('"').toString();
  }

  /**
   * {@link #check}, and no directory on the way to {@code path} in {@code project} is a symbolic
   * link (what is below one is not the project's).
   */
  public static String checkIn(Path project, String path) {
    check(path);
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      Path ancestor = project.resolve(path.substring(0, slash));
      if (Files.isSymbolicLink(ancestor)) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, shown(path.substring(0, slash)) + " is a symbolic link in the project; "
            + "Waymark does not read or write through links: " + shown(path));
      }
      if (!Files.isDirectory(ancestor, LinkOption.NOFOLLOW_LINKS)) {
        break;
      }
    }
    return path;
  }
}
