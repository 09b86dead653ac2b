package dev.waymark.core.tool;

import dev.waymark.core.protocol.ErrorKind;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;

/**
 * A file glob as models write them: a pattern without {@code /} matches a file's name at any depth
 * ({@code *.java}); one with {@code /} matches the path below the searched directory, where a
 * leading {@code **}{@code /} may also match nothing ({@code **}{@code /*.java} finds top-level files too).
 */
final class Glob {
  private final PathMatcher matcher;
  private final PathMatcher withoutLeadingStars;
  private final boolean byName;

  private Glob(String pattern) {
    var fs = FileSystems.getDefault();
    this.byName = !pattern.contains("/");
    this.matcher = fs.getPathMatcher("glob:" + pattern);
    this.withoutLeadingStars = pattern.startsWith("**/") ? fs.getPathMatcher("glob:" + pattern.substring(3)) : null;
  }

  static Glob of(String pattern) throws ToolError {
    if (pattern.isBlank()) {
      throw new ToolError(ErrorKind.REFUSED, "The glob pattern is empty.");
    }
    try {
      return new Glob(pattern);
    } catch (IllegalArgumentException e) {
      throw new ToolError(ErrorKind.REFUSED, "Not a valid glob pattern: \"" + pattern + "\" (" + e.getMessage() + ").");
    }
  }

  /** {@code below} is the path relative to the searched directory, with {@code /}. */
  boolean matches(String below) {
    Path p = Path.of(below);
    if (byName) {
      return matcher.matches(p.getFileName());
    }
    return matcher.matches(p) || withoutLeadingStars != null && withoutLeadingStars.matches(p);
  }
}
