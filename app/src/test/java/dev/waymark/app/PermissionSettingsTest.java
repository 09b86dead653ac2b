package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "allow" and "deny" rules of the settings files, trust, and rules saved from an approval. */
class PermissionSettingsTest {
  @TempDir Path temp;
  Path project;
  Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
  }

  private void write(Path file, String json) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
  }

  private Permissions permissions() throws Exception {
    return Settings.resolve(env, project).permissions(env, project);
  }

  @Test
  void rulesFromTheUserAndATrustedProjectAreInForceWithWhereTheyCameFrom() throws Exception {
    write(Settings.userFile(env), "{\"allow\": [\"run_shell(npm test:*)\", \"read_file\", \"mcp__github__list_issues\"],"
        + " \"deny\": [\"run_shell(git push:*)\"], \"trustedProjects\": [\"" + project.toRealPath() + "\"]}");
    write(Settings.projectFile(project), "{\"allow\": [\"run_shell(make:*)\"], \"deny\": [\"mcp__github\"]}");
    Permissions rules = permissions();
    assertThat(rules.entries()).extracting(Object::toString).containsExactlyInAnyOrder(
        "allow run_shell(npm test:*)  (user settings)", "allow read_file  (user settings)",
        "allow mcp__github__list_issues  (user settings)", "deny  run_shell(git push:*)  (user settings)",
        "allow run_shell(make:*)  (project settings)", "deny  mcp__github  (project settings)");
    assertThat(rules.check("run_shell", Optional.of("make all")).outcome()).isEqualTo(Permissions.Outcome.ALLOW);
    assertThat(rules.check("mcp__github__list_issues", Optional.empty()).outcome())
        .as("deny wins").isEqualTo(Permissions.Outcome.DENY);
  }

  @Test
  void anUntrustedProjectsAllowRulesAreIgnoredWithAWarningButItsDenyRulesHold() throws Exception {
    write(Settings.projectFile(project), "{\"allow\": [\"run_shell\"], \"deny\": [\"run_shell(rm:*)\"]}");
    Settings.Loaded loaded = Settings.resolve(env, project);
    assertThat(loaded.warning()).get().asString().contains("not trusted", "allow rules run_shell");
    Permissions rules = loaded.permissions(env, project);
    assertThat(rules.entries()).extracting(Object::toString).containsExactly("deny  run_shell(rm:*)  (project settings)");
    assertThat(rules.check("run_shell", Optional.of("ls")).outcome()).isEqualTo(Permissions.Outcome.ASK);
    assertThatThrownBy(() -> rules.add(new Permissions.Entry(Permissions.Scope.PROJECT, false, PermissionRule.parse("read_file"))))
        .hasMessageContaining("not trusted").hasMessageContaining("user settings");
    assertThat(Files.readString(Settings.projectFile(project))).doesNotContain("read_file");
  }

  @Test
  void anUntrustedProjectsFileIsNotAPlaceAnApprovalOffersForAnAllowRule() throws Exception {
    Permissions untrusted = Settings.resolve(env, project).permissions(env, project);
    assertThat(untrusted.keepsAllowRules(Permissions.Scope.PROJECT)).isFalse();
    assertThat(untrusted.keepsAllowRules(Permissions.Scope.USER)).isTrue();
    assertThat(untrusted.keepsAllowRules(Permissions.Scope.SESSION)).isTrue();
    assertThat(new Permissions(List.of(), new RuleFiles(env, project, true)).keepsAllowRules(Permissions.Scope.PROJECT))
        .isTrue();
  }

  @Test
  void aBadRuleIsReportedWithItsPathLineAndColumn() throws Exception {
    write(Settings.userFile(env), "{\n  \"allow\": [\"read_file\",\n    \"write_file(src)\"]\n}");
    assertThatThrownBy(() -> Settings.resolve(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining(Settings.userFile(env) + ":3:5")
        .hasMessageContaining("allow rule \"write_file(src)\": only run_shell takes a command");
  }

  @Test
  void aRuleSavedFromAnApprovalGoesIntoTheFileKeepingItsOtherValuesAndRemovingItTakesItOut() throws Exception {
    write(Settings.userFile(env), "{\"model\": \"mine\", \"allow\": [\"read_file\"]}");
    Permissions rules = permissions();
    Permissions.Entry npm = new Permissions.Entry(Permissions.Scope.USER, false, PermissionRule.parse("run_shell(npm test:*)"));
    rules.add(npm);
    Settings saved = Settings.read(Settings.userFile(env));
    assertThat(saved.model()).isEqualTo("mine");
    assertThat(saved.allow()).containsExactly("read_file", "run_shell(npm test:*)");
    assertThat(permissions().check("run_shell", Optional.of("npm test")).outcome()).isEqualTo(Permissions.Outcome.ALLOW);

    rules.remove(npm);
    assertThat(Settings.read(Settings.userFile(env)).allow()).containsExactly("read_file");

    Permissions.Entry deny = new Permissions.Entry(Permissions.Scope.PROJECT, true, PermissionRule.parse("run_shell(rm:*)"));
    rules.add(deny); // a deny rule may go to an untrusted project: it only takes away
    assertThat(Settings.read(Settings.projectFile(project)).deny()).containsExactly("run_shell(rm:*)");
  }

  @Test
  void aBrokenSettingsFileIsNeverOverwrittenByASavedRule() throws Exception {
    write(Settings.userFile(env), "{\"allow\": [\"read_file\"");
    Permissions rules = new Permissions(List.of(), new RuleFiles(env, project, false));
    assertThatThrownBy(() -> rules.add(new Permissions.Entry(Permissions.Scope.USER, false, PermissionRule.parse("grep"))))
        .hasMessageContaining(Settings.userFile(env).toString());
    assertThat(Files.readString(Settings.userFile(env))).isEqualTo("{\"allow\": [\"read_file\"");
    assertThat(rules.entries()).isEmpty();
  }

  @Test
  void theBellRingsUnlessASettingTurnsItOff() throws Exception {
    assertThat(Settings.resolve(env, project).settings().ringsBell()).isTrue();
    write(Settings.userFile(env), "{\"bell\": false}");
    assertThat(Settings.resolve(env, project).settings().ringsBell()).isFalse();
  }

  @Test
  void desktopNotificationsAreOnUnlessASettingTurnsThemOff() throws Exception {
    assertThat(Settings.resolve(env, project).settings().notifies()).isTrue();
    write(Settings.userFile(env), "{\"notifications\": false}");
    assertThat(Settings.resolve(env, project).settings().notifies()).isFalse();
  }
}
