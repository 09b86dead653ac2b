package dev.waymark.core.skill;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillCatalogTest {
  @TempDir Path temp;

  private Path skill(Path skillsDir, String folder, String text) throws Exception {
    Path dir = Files.createDirectories(skillsDir.resolve(folder));
    Files.writeString(dir.resolve("SKILL.md"), text);
    return dir;
  }

  /** A skill folder as Claude Code's documentation writes one, multi-line YAML description and extra keys included. */
  private static final String CLAUDE_CODE_SKILL = """
      ---
      name: pdf-processing
      description: >-
        Extract text and tables from PDF files, fill forms, merge documents.
        Use when working with PDF files or when the user mentions PDFs.
      allowed-tools: Read, Grep
      ---

      # PDF Processing

      Use scripts/extract.py to pull the text out.
      """;

  @Test
  void aClaudeCodeSkillFolderIsReadUnchangedWithItsNameAndDescription() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    skill(project.resolve(".claude/skills"), "pdf", CLAUDE_CODE_SKILL);

    SkillCatalog catalog = SkillCatalog.of(Optional.of(project), temp.resolve("config/waymark"), temp.resolve("home"));

    assertThat(catalog.skills()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("pdf-processing");
      assertThat(s.description()).startsWith("Extract text and tables from PDF files").contains("mentions PDFs.");
      assertThat(s.origin()).isEqualTo("project");
    });
    assertThat(SkillCatalog.body(catalog.skills().get(0))).startsWith("# PDF Processing").doesNotContain("allowed-tools");
    assertThat(catalog.promptSection()).contains("# Skills", "`skill` tool", "- pdf-processing: Extract text and tables");
  }

  @Test
  void theProjectsSkillsComeFirstAndAnUntrustedProjectGivesNone() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path config = temp.resolve("config/waymark");
    Path home = temp.resolve("home");
    skill(project.resolve(".waymark/skills"), "review", "---\nname: review\ndescription: the project's review\n---\nP");
    skill(config.resolve("skills"), "review", "---\nname: review\ndescription: my review\n---\nU");
    skill(home.resolve(".claude/skills"), "deploy", "---\nname: deploy\ndescription: how I deploy\n---\nD");

    SkillCatalog trusted = SkillCatalog.of(Optional.of(project), config, home);
    assertThat(trusted.skills()).extracting(Skill::name, Skill::description)
        .containsExactly(Tuple.tuple("review", "the project's review"),
            Tuple.tuple("deploy", "how I deploy"));
    assertThat(trusted.refused()).singleElement().satisfies(r -> assertThat(r.why()).startsWith("shadowed by"));

    SkillCatalog untrusted = SkillCatalog.of(Optional.empty(), config, home);
    assertThat(untrusted.skills()).extracting(Skill::description).containsExactly("my review", "how I deploy");

    SkillCatalog saidWhy = SkillCatalog.untrusted(project, config, home);
    assertThat(saidWhy.skills()).extracting(Skill::description).containsExactly("my review", "how I deploy");
    assertThat(saidWhy.describe()).contains("  not loaded: " + project.resolve(".waymark/skills/review")
        + ": the project is not trusted: its skills load once you trust it (the question when waymark starts)");
  }

  @Test
  void aFolderThatCannotBeUsedIsListedWithWhyAndNeverLoaded() throws Exception {
    Path skills = temp.resolve("skills");
    skill(skills, "plain", "# no front matter\n");
    skill(skills, "nodesc", "---\nname: nodesc\n---\nbody");
    skill(skills, "badname", "---\nname: Bad Name\ndescription: x\n---\n");
    skill(skills, "badyaml", "---\nname: [unclosed\ndescription: x\n---\n");
    Files.createDirectories(skills.resolve("empty-folder"));

    SkillCatalog catalog = SkillCatalog.in(Map.of(skills, "user"));

    assertThat(catalog.isEmpty()).isTrue();
    assertThat(catalog.promptSection()).isEmpty();
    assertThat(catalog.refused()).extracting(SkillCatalog.Refused::why).anySatisfy(w -> assertThat(w).contains("no front matter"))
        .anySatisfy(w -> assertThat(w).contains("no description")).anySatisfy(w -> assertThat(w).contains("lowercase"))
        .anySatisfy(w -> assertThat(w).contains("not YAML")).hasSize(4);
    assertThat(catalog.describe()).anySatisfy(line -> assertThat(line).startsWith("No Agent Skills"));
  }

  @Test
  void withNoNameTheFolderNamesTheSkill() throws Exception {
    skill(temp.resolve("skills"), "commit-helper", "---\ndescription: writes commit messages\n---\nDo it.");
    assertThat(SkillCatalog.in(Map.of(temp.resolve("skills"), "user")).find("commit-helper")).isPresent();
  }
}
