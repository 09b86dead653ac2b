package dev.waymark.core.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file the user named for an export: written whole, never over one there unasked, refused with why. */
class ExportFileTest {
  @TempDir Path temp;

  @Test
  void aNewFileIsWrittenFromTheProjectOrTheHomeAndOneThereOnlyWhenAsked() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path home = Files.createDirectories(temp.resolve("home"));

    ExportFile.Outcome first = ExportFile.write(project, home, "chat.md", "one", false);
    ExportFile.Outcome again = ExportFile.write(project, home, "chat.md", "two", false);
    ExportFile.Outcome forced = ExportFile.write(project, home, "chat.md", "three", true);
    ExportFile.Outcome mine = ExportFile.write(project, home, "~/chat.md", "four", false);

    assertThat(first).isEqualTo(new ExportFile.Outcome(project.resolve("chat.md"), Optional.empty(), false, ""));
    assertThat(again.refusal()).contains(ExportFile.Refusal.EXISTS);
    assertThat(forced.replaced()).isTrue();
    assertThat(project.resolve("chat.md")).hasContent("three");
    assertThat(mine.file()).isEqualTo(home.resolve("chat.md"));
    try (var left = Files.list(project)) {
      assertThat(left).as("no temporary file stays behind").containsExactly(project.resolve("chat.md"));
    }
  }

  @Test
  void aLinkIsReplacedNotFollowedAndBadNamesAreRefusedWithWhy() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path elsewhere = Files.writeString(temp.resolve("elsewhere.txt"), "keep");
    Files.createSymbolicLink(project.resolve("link.md"), elsewhere);
    Files.createDirectories(project.resolve("docs"));

    assertThat(ExportFile.write(project, temp, "link.md", "x", false).refusal()).contains(ExportFile.Refusal.EXISTS);
    assertThat(ExportFile.write(project, temp, "link.md", "x", true).written()).isTrue();
    assertThat(elsewhere).hasContent("keep");
    assertThat(Files.isSymbolicLink(project.resolve("link.md"))).isFalse();
    assertThat(ExportFile.write(project, temp, "docs", "x", true).refusal()).contains(ExportFile.Refusal.DIRECTORY);
    assertThat(ExportFile.write(project, temp, "none/x.md", "x", true).refusal()).contains(ExportFile.Refusal.NO_DIRECTORY);
    assertThat(ExportFile.write(project, temp, "  ", "x", true).refusal()).contains(ExportFile.Refusal.BAD_NAME);
    assertThat(ExportFile.write(project, temp, "a\0b", "x", true).refusal()).contains(ExportFile.Refusal.BAD_NAME);
  }
}
