package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;

/**
 * The work trees of a repository, as git finds them (the main one and those in its common
 * directory's {@code worktrees/}), for what git itself refuses: moving a branch one of them has
 * checked out, or is rebasing or bisecting.
 */
final class WorkTrees {
  private WorkTrees() {}

  /** The work tree that has {@code ref} ({@code refs/heads/...}) checked out, or is rebasing or bisecting it. */
  static Optional<Path> usingBranch(Repository repo, String ref) throws IOException {
    Path own = repo.getDirectory().toPath();
    Path common = own;
    Path commondir = own.resolve("commondir");
    if (Files.isRegularFile(commondir)) {
      common = own.resolve(Files.readString(commondir, StandardCharsets.UTF_8).strip()).normalize();
    }
    List<Path> gitDirs = new ArrayList<>(List.of(common));
    Path linked = common.resolve("worktrees");
    if (Files.isDirectory(linked)) {
      try (Stream<Path> dirs = Files.list(linked)) {
        dirs.filter(Files::isDirectory).sorted().forEach(gitDirs::add);
      }
    }
    for (Path dir : gitDirs) {
      if (uses(dir, ref)) {
        return Optional.of(workTree(dir, common));
      }
    }
    return Optional.empty();
  }

  private static boolean uses(Path gitDir, String ref) {
    String branch = ref.substring(Constants.R_HEADS.length());
    return read(gitDir.resolve("HEAD")).equals("ref: " + ref)
        || read(gitDir.resolve("rebase-merge/head-name")).equals(ref)
        || read(gitDir.resolve("rebase-apply/head-name")).equals(ref)
        || read(gitDir.resolve("BISECT_START")).equals(branch);
  }

  /** Where the work tree of {@code gitDir} is: the common directory's parent, or what its {@code gitdir} file names. */
  private static Path workTree(Path gitDir, Path common) {
    if (gitDir.equals(common)) {
      return common.getParent();
    }
    String dotGit = read(gitDir.resolve("gitdir"));
    return dotGit.isEmpty() ? gitDir : Path.of(dotGit).getParent();
  }

  private static String read(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8).strip() : "";
    } catch (IOException unreadable) {
      return "";
    }
  }
}
