package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trust question names an untrusted project's skills beside its hooks: they load only once it is trusted. */
class SkillTrustTest {
  @TempDir Path temp;

  @Test
  void theTrustQuestionNamesTheProjectsSkills() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Map<String, String> env = Map.of("HOME", temp.resolve("home").toString(), "XDG_CONFIG_HOME", temp.resolve("config").toString());
    assertThat(SkillFiles.untrustedNote(env, project)).isEmpty();
    for (String skill : new String[] {".waymark/skills/review", ".claude/skills/deploy"}) {
      Files.createDirectories(project.resolve(skill));
      Files.writeString(project.resolve(skill).resolve("SKILL.md"), "---\nname: x\ndescription: y\n---\nbody");
    }
    assertThat(SkillFiles.untrustedNote(env, project)).isEqualTo(" Its skills are not loaded either: review, deploy.");
  }
}
