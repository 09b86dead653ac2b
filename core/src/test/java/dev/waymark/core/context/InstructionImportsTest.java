package dev.waymark.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code @path} imports in instruction files, and the user's own files, as Claude Code users write them. */
class InstructionImportsTest {
  @TempDir Path temp;
  Path project;
  Path home;

  @BeforeEach
  void dirs() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    home = Files.createDirectories(temp.resolve("home"));
  }

  private void write(Path root, String path, String text) throws Exception {
    Files.createDirectories(root.resolve(path).getParent());
    Files.writeString(root.resolve(path), text);
  }

  private String rootText() {
    return InstructionFiles.atRoot(project, home).get(0).text();
  }

  @Test
  void anImportComesAfterItsFileAndANestedOneIsRelativeToTheFileThatNamesIt() throws Exception {
    write(project, "AGENTS.md", "Style: see @docs/style.md.\nBuild: @docs/build.md\n");
    write(project, "docs/style.md", "Two spaces. Also @more/naming.md\n");
    write(project, "docs/more/naming.md", "camelCase\n");
    write(project, "docs/build.md", "mvn verify\n");

    assertThat(rootText()).isEqualTo("Style: see @docs/style.md.\nBuild: @docs/build.md\n\n"
        + "## docs/style.md (imported with @docs/style.md)\n\nTwo spaces. Also @more/naming.md\n\n"
        + "## docs/more/naming.md (imported with @more/naming.md)\n\ncamelCase\n\n"
        + "## docs/build.md (imported with @docs/build.md)\n\nmvn verify");
  }

  @Test
  void aCycleEndsAndAFileImportedTwiceComesOnce() throws Exception {
    write(project, "AGENTS.md", "@a.md and @b.md");
    write(project, "a.md", "A imports @b.md and @AGENTS.md");
    write(project, "b.md", "B imports @a.md");

    assertThat(rootText()).isEqualTo("@a.md and @b.md\n\n## a.md (imported with @a.md)\n\nA imports @b.md and @AGENTS.md"
        + "\n\n## b.md (imported with @b.md)\n\nB imports @a.md");
  }

  @Test
  void importsGoFiveDeepAndTheSixthIsANote() throws Exception {
    write(project, "AGENTS.md", "@1.md");
    for (int i = 1; i <= 6; i++) {
      write(project, i + ".md", "level " + i + " @" + (i + 1) + ".md");
    }
    write(project, "7.md", "too deep");

    String text = rootText();
    assertThat(text).contains("level 5", "[@6.md not imported: imports go 5 deep at most]").doesNotContain("level 6");
  }

  @Test
  void nothingOutsideTheProjectButTheUsersInstructionDirectoriesNorThroughALinkIsImported() throws Exception {
    write(temp, "secret.md", "SECRET");
    write(home, ".claude/mine.md", "my notes");
    write(home, ".ssh/id_rsa", "PRIVATE KEY");
    Files.createSymbolicLink(project.resolve("linked.md"), temp.resolve("secret.md"));
    Files.createSymbolicLink(project.resolve("dir"), temp);
    write(project, "AGENTS.md", "@../secret.md @" + temp.resolve("secret.md") + " @linked.md @dir/secret.md "
        + "@~/../secret.md @~/.ssh/id_rsa @~/.claude/../.ssh/id_rsa @~/.claude/mine.md");

    assertThat(rootText()).doesNotContain("SECRET", "PRIVATE KEY")
        .endsWith("## ~/.claude/mine.md (imported with @~/.claude/mine.md)\n\nmy notes");
  }

  @Test
  void mentionsInCodeMailAddressesAndHandlesAreLeftAsText() throws Exception {
    write(project, "x.md", "IMPORTED");
    write(project, "AGENTS.md", "Run `cat @x.md`; mail me@x.md; ask @reviewer\n```\n@x.md\n```\n~~~\n@x.md\n~~~");

    assertThat(rootText()).doesNotContain("IMPORTED");
    assertThat(InstructionImports.named("(see @x.md) [@y.md] @z.md, and @w.md.")).containsExactly("x.md", "y.md",
        "z.md", "w.md");
  }

  @Test
  void aNestedInstructionFileImportsToo() throws Exception {
    write(project, "web/AGENTS.md", "@../docs/web.md");
    write(project, "docs/web.md", "use React");

    assertThat(InstructionFiles.along(project, "web/App.tsx", home).get(0).text()).endsWith("use React");
  }

  @Test
  void theUsersOwnFilesAreWaymarksThenClaudeCodesWithTheirImportsInsideTheHome() throws Exception {
    Path config = home.resolve(".config/waymark");
    write(config, "AGENTS.md", "Answer in British English. @style.md @../../../secret.md @~/notes.md");
    write(home, "notes.md", "My notes.");
    write(config, "style.md", "Short sentences.");
    write(home, ".claude/CLAUDE.md", "Never push.");
    write(temp, "secret.md", "SECRET");

    List<InstructionFiles.Instructions> mine = InstructionFiles.ofUser(config, home);

    assertThat(mine).extracting(InstructionFiles.Instructions::path)
        .containsExactly("~/.config/waymark/AGENTS.md", "~/.claude/CLAUDE.md");
    assertThat(mine.get(0).text()).contains("Short sentences.", "My notes.").doesNotContain("SECRET");
    assertThat(InstructionFiles.userBlocks(config, home)).startsWith(
        "# The user's own instructions (~/.config/waymark/AGENTS.md), for every project; where the project's "
            + "instructions disagree, the project's win\n\nAnswer in British English.")
        .endsWith("\n\nNever push.");
    assertThat(InstructionFiles.userBlocks(home.resolve("none"), temp)).isEmpty();
  }
}
