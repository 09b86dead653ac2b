package dev.waymark.core.sandbox;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The project's secrets files by convention ({@code .env}, {@code .env.*}, a directory so named),
 * which plan mode's read-only commands must not read: there a command runs unasked, while reading
 * such a file with a tool asks each time. A command that may write runs as the user chose (asked,
 * or in auto, where a build may need its {@code .env}), so only plan mode hides them.
 */
public final class ProjectSecrets {
  private ProjectSecrets() {}

  /**
   * How deep below the project's root secrets files are looked for: the root's own, and those of
   * packages and apps down to {@code a/b/c/.env}, where such files sit (at the top of what they
   * configure).
   */
  static final int DEPTH = 4;

  /**
   * How many directories listed and entries looked at, below the root, nearest the root first. A
   * plan-mode command must cost no walk of a 100,000-file project (issue 37): past this many, the
   * look goes no further, and costs the same whatever the project's size.
   */
  static final int BUDGET = 500;

  /** Directories whose contents are never a project's own configuration, and can be vast. */
  private static final Set<String> NOT_ENTERED = Set.of(".git", "node_modules");

  /** Whether one name of a path is a secrets file's or directory's. */
  public static boolean isSecretsName(String segment) {
    return segment.equals(".env") || segment.startsWith(".env.");
  }

  /** The secrets files and directories in {@code project} (see {@link #in(Path, int)}), within {@link #BUDGET}. */
  public static List<Path> in(Path project) {
    return in(project, BUDGET);
  }

  /**
   * The secrets files and directories in {@code project} as they are now, down to {@link #DEPTH}
   * names deep, breadth first: the root is listed whole, and the directories listed below it and the
   * entries looked at to find them are at most {@code budget}; every directory listed is searched
   * whole by name. Links are not followed (a link
   * leads to what is hidden where it lies); {@code .git} and {@code node_modules} are not entered; a
   * directory that cannot be read is skipped (a command cannot read it either).
   */
  static List<Path> in(Path project, int budget) {
    List<Path> found = new ArrayList<>();
    Deque<Path> directories = new ArrayDeque<>(List.of(project));
    int examined = 0;
    while (!directories.isEmpty()) {
      Path directory = directories.poll();
      int depth = directory.equals(project) ? 0 : project.relativize(directory).getNameCount();
      if (depth > 0 && examined++ >= budget) {
        break;
      }
      boolean goesDeeper = depth + 1 < DEPTH;
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
        for (Path entry : entries) {
          String name = entry.getFileName().toString();
          if (isSecretsName(name)) {
            if (!attributes(entry).map(BasicFileAttributes::isSymbolicLink).orElse(true)) {
              found.add(entry);
            }
          } else if (goesDeeper && examined < budget && !NOT_ENTERED.contains(name)) {
            examined++;
            if (attributes(entry).map(BasicFileAttributes::isDirectory).orElse(false)) {
              directories.add(entry);
            }
          }
        }
      } catch (IOException | SecurityException unreadable) {
        // skipped: a command cannot read it either
      }
    }
    return found;
  }

  private static Optional<BasicFileAttributes> attributes(Path entry) {
    try {
      return Optional.of(Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    } catch (IOException | SecurityException gone) {
      return Optional.empty();
    }
  }
}
