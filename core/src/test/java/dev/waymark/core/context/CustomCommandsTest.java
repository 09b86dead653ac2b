package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CustomCommandsTest {
  @TempDir Path temp;

  @Test
  void filesBecomeCommandsWithTheirFirstLineAsDescriptionAndTheProjectsWinOverTheUsers() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project/.waymark/commands"));
    Path user = Files.createDirectories(temp.resolve("config/commands"));
    Files.writeString(project.resolve("test.md"), "\n# Run the tests\nRun the tests of $ARGUMENTS and fix what fails.\n");
    Files.writeString(user.resolve("test.md"), "the user's test\n");
    Files.writeString(user.resolve("explain.md"), "---\ndescription: \"Explain code\"\n---\nExplain this code.\n");
    Files.writeString(user.resolve("notes.txt"), "not a command\n");
    Files.writeString(user.resolve("bad name.md"), "spaces\n");
    Files.writeString(user.resolve("huge.md"), "x".repeat(CustomCommands.MAX_BYTES + 1));
    Files.createSymbolicLink(user.resolve("linked.md"), project.resolve("test.md"));

    CustomCommands commands = CustomCommands.of(Optional.of(temp.resolve("project")), temp.resolve("config"));

    assertThat(commands.list()).extracting(CustomCommands.Entry::name, CustomCommands.Entry::description).containsExactly(
        Tuple.tuple("explain", "Explain code"),
        Tuple.tuple("test", "Run the tests"));
    assertThat(commands.find("test").orElseThrow().prompt("  core  "))
        .isEqualTo("# Run the tests\nRun the tests of core and fix what fails.");
    assertThat(commands.find("explain").orElseThrow().prompt("src/Main.java")).isEqualTo("Explain this code.\n\nsrc/Main.java");
    assertThat(commands.find("explain").orElseThrow().prompt("")).isEqualTo("Explain this code.");

    CustomCommands untrusted = CustomCommands.of(Optional.empty(), temp.resolve("config"));
    assertThat(untrusted.find("test").orElseThrow().template()).isEqualTo("the user's test\n");
  }

  @Test
  void aFileWrittenDuringTheSessionIsThereAtOnceAndMissingDirectoriesHaveNone() throws Exception {
    CustomCommands commands = CustomCommands.of(Optional.of(temp.resolve("nowhere")), temp.resolve("config"));
    assertThat(commands.list()).isEmpty();
    Files.createDirectories(temp.resolve("config/commands"));
    Files.writeString(temp.resolve("config/commands/later.md"), "Later.\n");
    assertThat(commands.find("later")).isPresent();
  }
}
