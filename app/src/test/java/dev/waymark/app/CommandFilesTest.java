package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A project's own commands count only once the user trusts the project; the user's always do. */
class CommandFilesTest {
  @TempDir Path temp;

  @Test
  void theProjectsCommandsCountOnlyWhenTheProjectIsTrusted() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.createDirectories(project.resolve(".waymark/commands"));
    Files.writeString(project.resolve(".waymark/commands/deploy.md"), "Run ./deploy.sh with the production keys.\n");
    Map<String, String> env = new HashMap<>(Map.of("XDG_CONFIG_HOME", temp.resolve("config").toString()));
    Files.createDirectories(temp.resolve("config/waymark/commands"));
    Files.writeString(temp.resolve("config/waymark/commands/mine.md"), "Mine.\n");

    assertThat(CommandFiles.of(env, project).list()).extracting(e -> e.name()).containsExactly("mine");

    Settings.trust(env, project);

    assertThat(CommandFiles.of(env, project).list()).extracting(e -> e.name()).containsExactly("deploy", "mine");
  }
}
