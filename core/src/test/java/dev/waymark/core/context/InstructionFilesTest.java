package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstructionFilesTest {
  @TempDir Path temp;

  @Test
  void theRootsAgentsAndClaudeFilesAreReadAndNestedOnesOutermostFirst() throws Exception {
    Files.writeString(temp.resolve("AGENTS.md"), "root agents\n");
    Files.writeString(temp.resolve("CLAUDE.md"), "root claude\n");
    Files.createDirectories(temp.resolve("web/src/ui"));
    Files.writeString(temp.resolve("web/AGENTS.md"), "web rules\n");
    Files.writeString(temp.resolve("web/src/ui/CLAUDE.md"), "ui rules\n");
    Files.writeString(temp.resolve("web/src/EMPTY.md"), "");

    assertThat(InstructionFiles.atRoot(temp)).extracting(InstructionFiles.Instructions::path, InstructionFiles.Instructions::text)
        .containsExactly(Tuple.tuple("AGENTS.md", "root agents"),
            Tuple.tuple("CLAUDE.md", "root claude"));
    assertThat(InstructionFiles.along(temp, "web/src/ui/Button.tsx")).extracting(InstructionFiles.Instructions::path)
        .containsExactly("web/AGENTS.md", "web/src/ui/CLAUDE.md");
    assertThat(InstructionFiles.along(temp, "README.md")).isEmpty();
    assertThat(InstructionFiles.along(temp, "../web/x")).isEmpty();
    assertThat(InstructionFiles.along(temp, "web/src/ui/Button.tsx").get(1).header())
        .contains("web/src/ui/CLAUDE.md", "for files under web/src/ui/", "these win");
  }

  @Test
  void aLinkedInstructionFileOrDirectoryIsNotFollowedAndALongFileIsCutWithANote() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("AGENTS.md"), "secret\n");
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.createSymbolicLink(project.resolve("AGENTS.md"), outside.resolve("AGENTS.md"));
    Files.createSymbolicLink(project.resolve("linked"), outside);
    Files.createDirectories(project.resolve("big"));
    Files.writeString(project.resolve("big/AGENTS.md"), "x".repeat(InstructionFiles.MAX_CHARS + 10));

    assertThat(InstructionFiles.atRoot(project)).isEmpty();
    assertThat(InstructionFiles.along(project, "linked/a.txt")).isEmpty();
    String big = InstructionFiles.along(project, "big/a.txt").get(0).text();
    assertThat(big).endsWith("[AGENTS.md cut at " + InstructionFiles.MAX_CHARS + " characters]");
    assertThat(big.length()).isLessThan(InstructionFiles.MAX_CHARS + 100);
  }
}
