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
  void aGitProjectGivesItsBranchAndAShortStatusWithoutWritingTheRepository() throws Exception {
    try (Git git = Git.init().setDirectory(temp.toFile()).setInitialBranch("feature/x").call()) {
      Files.writeString(temp.resolve("kept.txt"), "a\n");
      Files.writeString(temp.resolve("changed.txt"), "a\n");
      git.add().addFilepattern(".").call();
      git.commit().setMessage("one").setAuthor("t", "t@example.com").setCommitter("t", "t@example.com").setSign(false).call();
    }
    Files.writeString(temp.resolve("changed.txt"), "b\n");
    Files.writeString(temp.resolve("new.txt"), "n\n");
    long indexModified = Files.getLastModifiedTime(temp.resolve(".git/index")).toMillis();

    String text = WorkingEnvironment.of(temp, Map.of(), LocalDate.now(), Sandboxing.NONE).describe();

    assertThat(text).contains("Git: a git repository, branch feature/x, uncommitted changes (git status --short):",
        "     M changed.txt", "    ?? new.txt").doesNotContain("kept.txt");
    assertThat(Files.getLastModifiedTime(temp.resolve(".git/index")).toMillis()).isEqualTo(indexModified);
  }

  @Test
  void aCleanRepositoryInASubdirectorySaysSoAndAManyChangesAreCut() throws Exception {
    Path project = Files.createDirectories(temp.resolve("sub"));
    try (Git git = Git.init().setDirectory(temp.toFile()).setInitialBranch("main").call()) {
      Files.writeString(project.resolve("a.txt"), "a\n");
      git.add().addFilepattern(".").call();
      git.commit().setMessage("one").setAuthor("t", "t@example.com").setCommitter("t", "t@example.com").setSign(false).call();
    }
    assertThat(WorkingEnvironment.of(project, Map.of(), LocalDate.now(), Sandboxing.NONE).describe())
        .contains("branch main, no uncommitted changes");

    Files.writeString(temp.resolve("outside.txt"), "not the project's\n");
    for (int i = 0; i < 25; i++) {
      Files.writeString(project.resolve("n" + (100 + i) + ".txt"), "n\n");
    }
    String text = WorkingEnvironment.of(project, Map.of(), LocalDate.now(), Sandboxing.NONE).describe();
    assertThat(text).contains("?? sub/n100.txt", "?? sub/n119.txt", "... and 5 more").doesNotContain("n120", "outside.txt");
  }
}
