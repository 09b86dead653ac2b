package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkingEnvironmentTest {
  @TempDir Path temp;

  @Test
  void theSectionGivesDirectoryOsDateShellSandboxAndNetwork() throws Exception {
    WorkingEnvironment environment = WorkingEnvironment.of(temp, Map.of("SHELL", "/usr/bin/fish"), LocalDate.of(2026, 3, 4),
        new Sandboxing("bwrap: the project is writable, the rest read-only", "off"));

    String text = environment.describe();

    assertThat(text).contains("Working directory (the project root; tool paths are relative to it): " + temp.toAbsolutePath().normalize(),
        "Operating system: " + System.getProperty("os.name"), "Today's date: 2026-03-04", "Shell: /usr/bin/fish",
        "Git: not a git repository", "Sandbox: bwrap: the project is writable, the rest read-only", "Network: off");
  }

  @Test
  void aGitProjectGivesItsBranchAndLastCommitButNoStatusWhichWouldWalkTheWorkTree() throws Exception {
    String commitId;
    try (Git git = Git.init().setDirectory(temp.toFile()).setInitialBranch("feature/x").call()) {
      Files.writeString(temp.resolve("kept.txt"), "a\n");
      Files.writeString(temp.resolve("changed.txt"), "a\n");
      git.add().addFilepattern(".").call();
      commitId = git.commit().setMessage("one\n\nbody").setAuthor("t", "t@example.com").setCommitter("t", "t@example.com")
          .setSign(false).call().getId().abbreviate(7).name();
    }
    Files.writeString(temp.resolve("changed.txt"), "b\n");
    Files.writeString(temp.resolve("new.txt"), "n\n");
    long indexModified = Files.getLastModifiedTime(temp.resolve(".git/index")).toMillis();

    String text = WorkingEnvironment.of(temp, Map.of(), LocalDate.now(), Sandboxing.NONE).describe();

    assertThat(text).contains("Git: a git repository, branch feature/x, last commit " + commitId
        + " one (run `git status` to see uncommitted changes)").doesNotContain("kept.txt", "changed.txt", "new.txt", "body");
    assertThat(Files.getLastModifiedTime(temp.resolve(".git/index")).toMillis()).isEqualTo(indexModified);
  }

  @Test
  void aRepositoryWithNoCommitYetOrInAParentDirectoryIsNamed() throws Exception {
    Path project = Files.createDirectories(temp.resolve("sub"));
    Git.init().setDirectory(temp.toFile()).setInitialBranch("main").call().close();
    Files.writeString(project.resolve("a.txt"), "a\n");

    assertThat(WorkingEnvironment.of(project, Map.of(), LocalDate.now(), Sandboxing.NONE).describe())
        .contains("Git: a git repository, branch main (run `git status` to see uncommitted changes)")
        .doesNotContain("a.txt");
  }
}
