package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.lib.Config;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sandboxed command cannot leave behind git settings, hooks or attributes that would make the
 * user's next {@code git} run a program of its choosing outside the sandbox, in any repository in
 * the project (one it makes, a nested one, one a {@code .git} file leads to, a bare one): those
 * changes are refused and said, and the rest of the command's changes are applied.
 */
@Tag("process")
class LayeredGitSettingsTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")))));
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void aRepositoryTheCommandMakesInAProjectThatIsNoneGetsNoProgramToRun() throws Exception {
    ToolResult result = f.shell("git init -q && git config core.fsmonitor ./.fsmonitor.sh && git config user.name agent"
        + " && echo ok > a.txt");
    assertThat(result.content()).contains(".git/config").contains("core.fsmonitor").contains("not applied");
    assertThat(f.read("a.txt")).isEqualTo("ok\n");
    assertThat(f.exists(".git/config")).as("the refused settings are not in the project").isFalse();
  }

  @Test
  void aNestedRepositorysSettingsAndHooksAreNotChangedToRunAProgram() throws Exception {
    GitCli.ok(f.project, "init", "-q", "vendor/lib");
    String config = f.read("vendor/lib/.git/config");
    f.nextTurn();
    ToolResult result = f.shell("git -C vendor/lib config core.pager ./pager.sh"
        + " && printf '#!/bin/sh\\necho owned\\n' > vendor/lib/.git/hooks/pre-commit && chmod +x vendor/lib/.git/hooks/pre-commit"
        + " && git -C vendor/lib config alias.st '!sh -c owned' && echo kept > vendor/lib/readme.txt");
    assertThat(result.content()).contains("vendor/lib/.git/config").contains("core.pager")
        .contains("vendor/lib/.git/hooks/pre-commit");
    assertThat(f.read("vendor/lib/.git/config")).isEqualTo(config);
    assertThat(f.exists("vendor/lib/.git/hooks/pre-commit")).isFalse();
    assertThat(f.read("vendor/lib/readme.txt")).isEqualTo("kept\n");
  }

  @Test
  void aBareRepositoryAndAGitFileLeadingToItGetNoProgramToRun() throws Exception {
    ToolResult result = f.shell("git init -q --bare store.git && git --git-dir=store.git config filter.x.smudge ./x.sh"
        + " && mkdir -p work && echo 'gitdir: ../store.git' > work/.git && echo ok > work/a.txt");
    assertThat(result.content()).contains("store.git/config").contains("filter.x.smudge");
    assertThat(!f.exists("store.git/config") || settings(f.file("store.git/config")).getString("filter", "x", "smudge") == null)
        .as("no smudge filter in store.git/config").isTrue();
    assertThat(f.read("work/a.txt")).isEqualTo("ok\n");
  }

  @Test
  void aDirectoryWhoseSettingsAnEarlierCommandWroteIsNotMadeARepositoryLater() throws Exception {
    ToolResult first = f.shell("mkdir -p tools && printf '[core]\\n\\tfsmonitor = ./x.sh\\n' > tools/config");
    assertThat(first.content()).as("a file named config is only a file").doesNotContain("not applied");
    ToolResult second = f.shell("mkdir -p tools/objects tools/refs && echo 'ref: refs/heads/main' > tools/HEAD");
    assertThat(second.content()).contains("tools/HEAD").contains("core.fsmonitor").contains("not applied");
    assertThat(f.exists("tools/HEAD")).isFalse();
  }

  @Test
  void attributesThatSelectAFilterAndALinkNamedGitLeadingToAProgramAreRefused() throws Exception {
    GitCli.ok(f.project, "init", "-q", "vendor/lib");
    f.nextTurn();
    ToolResult result = f.shell("printf '* filter=x\\n' > vendor/lib/.git/info/attributes"
        + " && mkdir -p w && git init -q --bare w/store && git --git-dir=w/store config core.editor ./e.sh"
        + " && ln -s store w/.git");
    assertThat(result.content()).contains("vendor/lib/.git/info/attributes").contains("w/store/config")
        .contains("w/.git: not applied");
    assertThat(f.exists("vendor/lib/.git/info/attributes")).isFalse();
    assertThat(f.exists("w/.git")).isFalse();
  }

  @Test
  void aSettingGitDoesNotReadAsPlainDataIsRefusedTheSshSigningKeyCommandAmongThem() throws Exception {
    GitCli.ok(f.project, "init", "-q", "vendor/lib");
    String config = f.read("vendor/lib/.git/config");
    f.nextTurn();
    ToolResult result = f.shell("git -C vendor/lib config gpg.ssh.defaultKeyCommand ./key.sh"
        + " && git -C vendor/lib config gpg.format ssh && git -C vendor/lib config commit.gpgSign true");
    assertThat(result.content()).contains("vendor/lib/.git/config").contains("gpg.").contains("not applied");
    assertThat(f.read("vendor/lib/.git/config")).isEqualTo(config);
  }

  @Test
  void settingsThatRunNoProgramAreAppliedInANestedRepository() throws Exception {
    GitCli.ok(f.project, "init", "-q", "vendor/lib");
    GitCli.ok(f.project.resolve("vendor/lib"), "config", "core.pager", "less -R"); // the user's own
    f.nextTurn();
    ToolResult result = f.shell("git -C vendor/lib config user.name agent && git -C vendor/lib config core.fsmonitor false");
    assertThat(result.content()).doesNotContain("not applied");
    Config now = settings(f.file("vendor/lib/.git/config"));
    assertThat(now.getString("user", null, "name")).isEqualTo("agent");
    assertThat(now.getString("core", null, "pager")).as("the user's pager stays theirs").isEqualTo("less -R");
  }

  private static Config settings(Path file) throws IOException, ConfigInvalidException {
    Config config = new Config();
    config.fromText(Files.readString(file));
    return config;
  }
}
