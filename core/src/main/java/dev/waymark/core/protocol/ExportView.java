package dev.waymark.core.protocol;

import java.util.List;
import java.util.Optional;

/**
 * What {@code Command.Export} wrote to the user's repository: the branch, its commits oldest first,
 * and what it pointed at before when {@code --force} moved it.
 *
 * @param base the commit the branch starts from (the user's HEAD), empty in a repository with no commit yet
 * @param skipped the checkpoints on the path that changed no file, so made no commit
 * @param ignored files the checkpoints wrote that git ignores (and HEAD does not track), left out
 */
public record ExportView(String branch, Optional<String> base, List<Commit> commits, Optional<String> replaced,
    List<Integer> skipped, List<String> ignored) {
  public ExportView {
    commits = List.copyOf(commits);
    skipped = List.copyOf(skipped);
    ignored = List.copyOf(ignored);
  }

  /** One commit: its id, the checkpoints it holds, its subject line and how many files it changed. */
  public record Commit(String id, List<Integer> checkpoints, String subject, int files) {
    public Commit {
      checkpoints = List.copyOf(checkpoints);
    }
  }

  /** What the interface and the command line say of an export. */
  public String summary() {
    ExportView export = this;
    StringBuilder text = new StringBuilder();
    int n = export.commits().size();
    text.append("Wrote ").append(n).append(n == 1 ? " commit" : " commits").append(" to the branch ")
        .append(export.branch()).append(export.base().map(b -> " (on HEAD " + b.substring(0, 7) + ")").orElse(""))
        .append(export.replaced().map(r -> ", replacing " + r.substring(0, 7)).orElse("")).append(':');
    for (ExportView.Commit c : export.commits()) {
      text.append("\n  ").append(c.id(), 0, 7).append(' ')
          .append(String.join(",", c.checkpoints().stream().map(k -> "#" + k).toList())).append(' ').append(c.subject())
          .append(" (").append(c.files()).append(c.files() == 1 ? " file)" : " files)");
    }
    if (!export.skipped().isEmpty()) {
      text.append("\nNo commit for ").append(String.join(", ", export.skipped().stream().map(k -> "#" + k).toList()))
          .append(": no file changed.");
    }
    if (!export.ignored().isEmpty()) {
      text.append("\nLeft out, as git ignores them: ").append(String.join(", ", export.ignored().stream().limit(10).toList()))
          .append(export.ignored().size() > 10 ? " and " + (export.ignored().size() - 10) + " more" : "").append('.');
    }
    text.append("\nHEAD, the index and the work tree are as they were; `git log ").append(export.branch())
        .append("` shows the branch.");
    return text.toString();
  }
}
