package dev.waymark.core.protocol;

import java.util.List;
import java.util.Optional;

/**
 * What {@code Command.Export} wrote to the user's repository: the branch, its commits oldest first,
 * and what it pointed at before when {@code --force} moved it.
 *
 * @param base the commit the branch starts from (the user's HEAD), empty in a repository with no commit yet
 * @param skipped the checkpoints on the path that changed no file, so made no commit
 */
public record ExportView(String branch, Optional<String> base, List<Commit> commits, Optional<String> replaced,
    List<Integer> skipped) {
  public ExportView {
    commits = List.copyOf(commits);
    skipped = List.copyOf(skipped);
  }

  /** One commit: its id, the checkpoints it holds, its subject line and how many files it changed. */
  public record Commit(String id, List<Integer> checkpoints, String subject, int files) {
    public Commit {
      checkpoints = List.copyOf(checkpoints);
    }
  }
}
