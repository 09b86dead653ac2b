package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which secrets files plan mode's read-only commands find empty: those at the top of what they
 * configure, down to four names deep, found without walking the whole project (issue 37: a
 * plan-mode command on a 100,000-file project costs no walk of it).
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
}
