package dev.waymark.core.context;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * The facts of where the agent works, for the system prompt: the model cannot find them out
 * without spending tool calls, and guesses them wrong (the shell's syntax, the year, the branch).
 *
 * @param git empty when the project is in no git repository (or it cannot be read)
 */
public record WorkingEnvironment(Path directory, String os, LocalDate date, String shell, Optional<GitFacts> git,
    Sandboxing sandboxing) {
  /**
   * The repository's branch and its last commit. Not its status: that is a walk of the whole work tree
   * (a stat per file), which a process that only answers or runs sandboxed commands never pays; the
   * model runs {@code git status} itself when it needs it.
   */
  public record GitFacts(String branch, Optional<String> lastCommit) {}

  /** The facts now, for the project at {@code directory}; {@code env} gives the shell. */
  public static WorkingEnvironment of(Path directory, Map<String, String> env, LocalDate today, Sandboxing sandboxing) {
    String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch")
        + ")";
    String shell = env.getOrDefault("SHELL", "");
    return new WorkingEnvironment(directory.toAbsolutePath().normalize(), os, today,
        shell.isBlank() ? "unknown (commands run with /bin/sh -c)" : shell, git(directory), sandboxing);
  }

  /** Reads the repository holding {@code directory}, read-only: its refs and one commit, never the work tree. */
  static Optional<GitFacts> git(Path directory) {
    FileRepositoryBuilder builder = new FileRepositoryBuilder().readEnvironment().findGitDir(directory.toFile());
    if (builder.getGitDir() == null) {
      return Optional.empty();
    }
    try (Repository repository = builder.setMustExist(true).build()) {
      String full = repository.getFullBranch();
      String branch = full == null ? "(no commits yet)"
          : full.startsWith("refs/heads/") ? repository.getBranch()
          : "detached at " + full.substring(0, Math.min(7, full.length()));
      ObjectId head = repository.resolve(Constants.HEAD);
      if (head == null) {
        return Optional.of(new GitFacts(branch, Optional.empty()));
      }
      try (RevWalk walk = new RevWalk(repository)) {
        RevCommit commit = walk.parseCommit(head);
        return Optional.of(new GitFacts(branch, Optional.of(head.abbreviate(7).name() + " " + commit.getShortMessage())));
      }
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // a damaged repository: the prompt goes without it rather than the tab failing
    }
  }

  /** The section of the system prompt. */
  public String describe() {
    StringBuilder text = new StringBuilder("# Where you work\n\n");
    text.append("- Working directory (the project root; tool paths are relative to it): ").append(directory).append('\n');
    text.append("- Operating system: ").append(os).append('\n');
    text.append("- Today's date: ").append(date).append('\n');
    text.append("- Shell: ").append(shell).append('\n');
    if (git.isEmpty()) {
      text.append("- Git: not a git repository\n");
    } else {
      GitFacts facts = git.get();
      text.append("- Git: a git repository, branch ").append(facts.branch());
      facts.lastCommit().ifPresent(commit -> text.append(", last commit ").append(commit));
      text.append(" (run `git status` to see uncommitted changes)\n");
    }
    text.append("- Sandbox: ").append(sandboxing.sandbox()).append('\n');
    text.append("- Network: ").append(sandboxing.network()).append('\n');
    return text.toString();
  }
}
