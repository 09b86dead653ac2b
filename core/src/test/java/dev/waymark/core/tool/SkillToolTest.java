package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.skill.SkillCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  SkillTool tool;
  Path project;

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Path dir = Files.createDirectories(temp.resolve("skills/release"));
    Files.writeString(dir.resolve("SKILL.md"), "---\nname: release\ndescription: cut a release\n---\n# Release\nRun the checklist.\n");
    Files.createDirectories(dir.resolve("scripts"));
    Files.writeString(dir.resolve("scripts/bump.sh"), "echo bump\n");
    Files.writeString(dir.resolve("CHECKLIST.md"), "1. tests\n");
    Files.writeString(temp.resolve("secret.txt"), "do not read\n");
    Files.createSymbolicLink(dir.resolve("escape.txt"), temp.resolve("secret.txt"));
    tool = new SkillTool(SkillCatalog.in(Map.of(temp.resolve("skills"), "user")), ToolSettings.DEFAULTS);
  }

  private ToolResult call(String json) throws Exception {
    return tool.run(JSON.readTree(json), new ToolContext(project, null, null));
  }

  @Test
  void loadingASkillGivesItsInstructionsAndTheFilesBesideThem() throws Exception {
    ToolResult result = call("{\"name\": \"release\"}");
    assertThat(result.isError()).isFalse();
    assertThat(result.content()).contains("# Release\nRun the checklist.", "- CHECKLIST.md", "- scripts/bump.sh")
        .doesNotContain("description: cut a release").doesNotContain("- SKILL.md");
    assertThat(tool.kind()).as("reading only: allowed in plan mode, never asks").isEqualTo(ToolKind.READ);
  }

  @Test
  void aCallIsDescribedByTheSkillAndFileAloneAsItsNameSaysSkillAlready() throws Exception {
    assertThat(tool.describe(JSON.readTree("{\"name\": \"release\"}"))).isEqualTo("release");
    assertThat(tool.describe(JSON.readTree("{\"name\": \"release\", \"file\": \"CHECKLIST.md\"}")))
        .isEqualTo("release CHECKLIST.md");
  }

  @Test
  void aFileOfTheSkillIsReadButNothingOutsideItsFolder() throws Exception {
    assertThat(call("{\"name\": \"release\", \"file\": \"CHECKLIST.md\"}").content()).isEqualTo("1. tests\n");
    assertThat(call("{\"name\": \"release\", \"file\": \"../../secret.txt\"}").content()).contains("has no file")
        .doesNotContain("do not read");
    assertThat(call("{\"name\": \"release\", \"file\": \"escape.txt\"}").content()).contains("leads out of the skill's folder")
        .doesNotContain("do not read");
  }

  @Test
  void anUnknownSkillIsAnErrorNamingTheOnesThereAre() throws Exception {
    ToolResult result = call("{\"name\": \"deploy\"}");
    assertThat(result.isError()).isTrue();
    assertThat(result.content()).contains("No skill named \"deploy\"", "release");
  }
}
