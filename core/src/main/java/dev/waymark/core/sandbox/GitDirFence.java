package dev.waymark.core.sandbox;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a git directory outside the project (a linked work tree's, a submodule's, the main
 * repository's common one) is bound writable under {@code gitWritable}: a command may commit,
 * check out and fetch there, but whatever makes git run a program stays read-only, since no
 * layer, and so no guard, sees what it writes there. Read-only in each such directory: its
 * settings ({@code config}, {@code config.worktree}), {@code commondir} (which would lead git to
 * other settings), {@code hooks/} and {@code info/attributes}, present or not (an empty read-only
 * placeholder stands for a missing one, removed after the command); and the other repositories
 * it holds ({@code worktrees/}, {@code modules/}), but for the one bound writable itself.
 */
final class GitDirFence {
  private static final List<String> FILES = List.of("config", "config.worktree", "commondir", "info/attributes");
  private static final List<String> OTHER_REPOSITORIES = List.of("worktrees", "modules");

  private GitDirFence() {}

  /**
   * Adds to {@code args} the binds of {@code gitDirs}, real git directories: each writable but its
   * fenced parts. One inside {@code project} is not bound: written through the command's layer, it
   * is checked by the git guard as the layer is applied. Mount points made for missing parts are
   * added to {@code placeholders}, each before its directory.
   */
  static void bindWritable(Path project, List<Path> gitDirs, Path empty, List<String> args, List<Path> placeholders) {
    List<Path> outside = gitDirs.stream().filter(dir -> !dir.startsWith(project)).toList();
    // one this user cannot write gains nothing from a bind, and no mount point can be made in it
    outside.stream().filter(dir -> !Files.isWritable(dir)).forEach(dir -> add(args, "--ro-bind", dir, dir));
    List<Path> dirs = outermostFirst(outside.stream().filter(Files::isWritable).toList());
    for (Path dir : dirs) { // a work tree's own directory, in its common one's worktrees/, bound over it after
      add(args, "--bind", dir, dir);
      for (String name : OTHER_REPOSITORIES) {
        readOnlyDirectory(dir.resolve(name), args, placeholders);
      }
    }
    for (Path dir : dirs) {
      fence(dir, empty, args, placeholders);
    }
  }

  private static void fence(Path dir, Path empty, List<String> args, List<Path> placeholders) {
    for (String name : FILES) {
      Path file = dir.resolve(name);
      if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        add(args, "--ro-bind", file, file);
      } else {
        boolean madeParent = !Files.exists(file.getParent(), LinkOption.NOFOLLOW_LINKS);
        add(args, "--ro-bind", empty, file);
        placeholders.add(file);
        if (madeParent) {
          placeholders.add(file.getParent());
        }
      }
    }
    readOnlyDirectory(dir.resolve("hooks"), args, placeholders);
  }

  /** {@code dir} read-only; when missing, an empty read-only one keeps a command from making it. */
  private static void readOnlyDirectory(Path dir, List<String> args, List<Path> placeholders) {
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      add(args, "--ro-bind", dir, dir);
    } else {
      add(args, "--tmpfs", dir, "--remount-ro", dir);
      placeholders.add(dir);
    }
  }

  /** The common directory before a work tree's own, which lies in its {@code worktrees/}. */
  private static List<Path> outermostFirst(List<Path> dirs) {
    List<Path> sorted = new ArrayList<>(dirs);
    sorted.sort((a, b) -> Integer.compare(a.getNameCount(), b.getNameCount()));
    return sorted.stream().distinct().toList();
  }

  private static void add(List<String> args, Object... values) {
    for (Object value : values) {
      args.add(value.toString());
    }
  }
}
