package dev.waymark.core.context;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * The facts of where the agent works, for the system prompt: the model cannot find them out
 * without spending tool calls, and guesses them wrong (the shell's syntax, the year, the branch).
 *
 * @param git empty when the project is in no git repository (or it cannot be read)
 */
public record WorkingEnvironment(Path directory, String os, LocalDate date, String shell, Optional<GitFacts> git,
    Sandboxing sandboxing) {
  /** How many changed paths the short status names: the model can run git itself for the rest. */
  static final int STATUS_PATHS = 20;

  /** The repository's branch and a short status ({@code git status --short}'s letters). */
  public record GitFacts(String branch, List<String> status, int moreChanged) {
    public GitFacts {
      status = List.copyOf(status);
    }
  }

  /** The facts now, for the project at {@code directory}; {@code env} gives the shell. */
  public static WorkingEnvironment of(Path directory, Map<String, String> env, LocalDate today, Sandboxing sandboxing) {
    String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch")
        + ")";
    String shell = env.getOrDefault("SHELL", "");
    return new WorkingEnvironment(directory.toAbsolutePath().normalize(), os, today,
        shell.isBlank() ? "unknown (commands run with /bin/sh -c)" : shell, git(directory), sandboxing);
  }

  /** Reads the repository holding {@code directory}, read-only: nothing is written to it. */
  static Optional<GitFacts> git(Path directory) {
    FileRepositoryBuilder builder = new FileRepositoryBuilder().readEnvironment().findGitDir(directory.toFile());
    if (builder.getGitDir() == null) {
      return Optional.empty();
    }
    try (Repository repository = builder.setMustExist(true).build(); Git git = Git.wrap(repository)) {
      String full = repository.getFullBranch();
      String branch = full == null ? "(no commits yet)"
          : full.startsWith("refs/heads/") ? repository.getBranch()
          : "detached at " + full.substring(0, Math.min(7, full.length()));
      Path top = repository.getWorkTree().toPath().toAbsolutePath().normalize();
      String prefix = top.relativize(directory.toAbsolutePath().normalize()).toString().replace('\\', '/');
      var status = git.status();
      if (!prefix.isEmpty()) {
        status.addPath(prefix);
      }
      Status found = status.call();
      Map<String, String> byPath = new TreeMap<>();
      found.getUntracked().forEach(p -> byPath.put(p, "??"));
      found.getModified().forEach(p -> byPath.put(p, " M"));
      found.getChanged().forEach(p -> byPath.put(p, "M "));
      found.getAdded().forEach(p -> byPath.put(p, "A "));
      found.getMissing().forEach(p -> byPath.put(p, " D"));
      found.getRemoved().forEach(p -> byPath.put(p, "D "));
      found.getConflicting().forEach(p -> byPath.put(p, "UU"));
      List<String> lines = new ArrayList<>();
      byPath.forEach((path, letters) -> {
        if (lines.size() < STATUS_PATHS) {
          lines.add(letters + " " + path);
        }
      });
      return Optional.of(new GitFacts(branch, lines, byPath.size() - lines.size()));
    } catch (IOException | GitAPIException | RuntimeException e) {
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
      if (facts.status().isEmpty()) {
        text.append(", no uncommitted changes\n");
      } else {
        text.append(", uncommitted changes (git status --short):\n");
        facts.status().forEach(line -> text.append("    ").append(line).append('\n'));
        if (facts.moreChanged() > 0) {
          text.append("    ... and ").append(facts.moreChanged()).append(" more\n");
        }
      }
    }
    text.append("- Sandbox: ").append(sandboxing.sandbox()).append('\n');
    text.append("- Network: ").append(sandboxing.network()).append('\n');
    return text.toString();
  }
}
