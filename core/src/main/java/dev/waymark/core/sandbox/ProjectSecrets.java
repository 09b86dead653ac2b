package dev.waymark.core.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The project's secrets files by convention ({@code .env}, {@code .env.*}, a directory so named),
 * which plan mode's read-only commands must not read: there a command runs unasked, while reading
 * such a file with a tool asks each time. A command that may write runs as the user chose (asked,
 * or in auto, where a build may need its {@code .env}), so only plan mode hides them.
 */
public final class ProjectSecrets {
  private ProjectSecrets() {}

  /** Whether one name of a path is a secrets file's or directory's. */
  public static boolean isSecretsName(String segment) {
    return segment.equals(".env") || segment.startsWith(".env.");
  }

  /**
   * How deep below the project's root secrets files are looked for: the root's own, and those of
   * packages and apps down to {@code a/b/c/.env}. Not the whole tree: a plan-mode command must not
   * cost a walk of a 100,000-file project (issue 37), and these files sit at the top of what they
   * configure.
   */
  static final int DEPTH = 4;

  /** Directories whose contents are never a project's own configuration, and can be vast. */
  private static final Set<String> NOT_ENTERED = Set.of(".git", "node_modules");

  /**
   * The secrets files and directories in {@code project} down to {@link #DEPTH} names deep, as they
   * are now: links are not followed (a link leads to what is hidden where it lies) and {@code .git}
   * and {@code node_modules} are not entered. A directory that cannot be read is skipped: a command
   * cannot read it either.
   */
  public static List<Path> in(Path project) {
    List<Path> found = new ArrayList<>();
    try {
      Files.walkFileTree(project, EnumSet.noneOf(FileVisitOption.class), DEPTH, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          if (dir.equals(project)) {
            return FileVisitResult.CONTINUE;
          }
          String name = dir.getFileName().toString();
          if (isSecretsName(name)) {
            found.add(dir);
            return FileVisitResult.SKIP_SUBTREE;
          }
          return NOT_ENTERED.contains(name) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (!attrs.isSymbolicLink() && isSecretsName(file.getFileName().toString())) {
            found.add(file);
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // walkFileTree reports failures to the visitor, which goes on; nothing reaches here
    }
    return found;
  }
}
