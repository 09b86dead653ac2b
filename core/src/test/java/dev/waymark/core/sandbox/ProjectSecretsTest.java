package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which secrets files plan mode's read-only commands find empty: those at the top of what they
 * configure, down to four names deep, found with a fixed budget of entries examined, nearest the
 * root first (issue 37: a plan-mode command on a 100,000-file project costs no walk of it).
 */
class ProjectSecretsTest {
  @TempDir Path project;

  @Test
  void secretsFilesDownToFourNamesDeepAreFoundButNotInsideGitOrNodeModulesNorDeeper() throws Exception {
    for (String path : new String[] {".env", "apps/web/.env.local", "a/b/c/.env", "a/b/c/d/.env",
        "node_modules/pkg/.env", ".git/.env", "src/main.txt"}) {
      Files.createDirectories(project.resolve(path).getParent());
      Files.writeString(project.resolve(path), "x\n");
    }
    Files.createDirectories(project.resolve("svc/.env"));
    Files.createSymbolicLink(project.resolve("apps/.env"), project.resolve("src/main.txt"));

    assertThat(ProjectSecrets.in(project).stream().map(p -> project.relativize(p).toString()))
        .containsExactlyInAnyOrder(".env", "apps/web/.env.local", "a/b/c/.env", "svc/.env");
  }

  @Test
  void pastItsBudgetTheLookGoesNoDeeperButEveryDirectoryListedIsSearchedByName() throws Exception {
    Files.writeString(project.resolve(".env"), "x\n");
    for (int i = 0; i < 10; i++) {
      Files.createDirectories(project.resolve("d" + i));
      Files.writeString(project.resolve("d" + i + "/.env"), "x\n");
    }

    assertThat(ProjectSecrets.in(project, 13)).as("ten looked at, three listed: the root's own and those three's")
        .hasSize(4).contains(project.resolve(".env"));
    assertThat(ProjectSecrets.in(project)).hasSize(11);
  }
}
