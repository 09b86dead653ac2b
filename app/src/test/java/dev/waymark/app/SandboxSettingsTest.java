package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.sandbox.SandboxMode;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.tool.ApprovalMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code sandbox} setting, what an untrusted project may do with it, and what {@code exec} says without one. */
class SandboxSettingsTest {
  @TempDir Path temp;
  Path project;
  Map<String, String> env = new HashMap<>();

  @BeforeEach
  void open() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
  }

  private void write(Path file, String json) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
  }

  @Test
  void theSettingBecomesThePolicyWithWaymarksOwnPlacesProtected() throws Exception {
    write(Settings.userFile(env), "{\"sandbox\": {\"mode\": \"required\", \"writable\": [\"~/.m2\", \"/opt/cache\"],"
        + " \"network\": true, \"gitWritable\": true}, \"providers\": [{\"id\": \"w\", \"type\": \"openai\","
        + " \"apiKeyFile\": \"~/.config/w.key\"}]}");
    WaymarkHome home = new WaymarkHome(temp.resolve("data"));
    SandboxPolicy policy = Settings.load(env, project).sandboxPolicy(home, env);

    Path userHome = Path.of(System.getProperty("user.home"));
    assertThat(policy.mode()).isEqualTo(SandboxMode.REQUIRED);
    assertThat(policy.writable()).containsExactly(userHome.resolve(".m2"), Path.of("/opt/cache"));
    assertThat(policy.network()).isTrue();
    assertThat(policy.gitWritable()).isTrue();
    assertThat(policy.hidden()).startsWith(home.root(), userHome.resolve(".config/w.key"))
        .contains(userHome.resolve(".ssh"), userHome.resolve(".aws"), userHome.resolve(".netrc"));
    assertThat(policy.readOnly()).containsExactly(temp.resolve("config/waymark"));

    SandboxPolicy defaults = Settings.NONE.sandboxPolicy(home, env);
    assertThat(defaults.mode()).isEqualTo(SandboxMode.AUTO);
    assertThat(defaults.network()).isFalse();
    assertThat(defaults.gitWritable()).isFalse();
    assertThat(defaults.writable()).isEmpty();
  }

  @Test
  void theUnixSocketsTheUserNamesAreReachableButAnUntrustedProjectCannotNameAny() throws Exception {
    write(Settings.userFile(env), "{\"sandbox\": {\"unixSockets\": [\"~/.docker/run/docker.sock\"]}}");
    write(Settings.projectFile(project), "{\"sandbox\": {\"unixSockets\": [\"/var/run/docker.sock\"]}}");
    WaymarkHome home = new WaymarkHome(temp.resolve("data"));
    Settings.Loaded loaded = Settings.resolve(env, project);
    SandboxPolicy policy = loaded.settings().sandboxPolicy(home, env);
    assertThat(policy.unixSockets()).containsExactly(Path.of(System.getProperty("user.home"), ".docker/run/docker.sock"));
    assertThat(policy.privateDir()).isEqualTo(home.root());
    assertThat(loaded.warning()).get().asString().contains("sandbox.unixSockets");
    assertThat(Settings.NONE.sandboxPolicy(home, env).unixSockets()).isEmpty();
    write(Settings.userFile(env), "{\"sandbox\": {\"unixSockets\": [\"docker.sock\"]}}");
    assertThatThrownBy(() -> Settings.load(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("\"docker.sock\" is not a path");
  }

  @Test
  void theUsualSecretsAreHiddenByDefaultTheUserAddsAndOpensPathsAnUntrustedProjectOnlyAdds() throws Exception {
    Path userHome = temp.resolve("home");
    WaymarkHome home = new WaymarkHome(temp.resolve("data"));
    SandboxPolicy defaults = Settings.NONE.sandboxPolicy(home, env, userHome);
    assertThat(defaults.hidden()).contains(home.root(), userHome.resolve(".ssh"), userHome.resolve(".aws"),
        userHome.resolve(".gnupg"), userHome.resolve(".config/gcloud"), userHome.resolve(".azure"), userHome.resolve(".kube"),
        userHome.resolve(".docker/config.json"), userHome.resolve(".netrc"), userHome.resolve(".git-credentials"),
        userHome.resolve(".npmrc"), userHome.resolve(".pypirc"), userHome.resolve(".mozilla"),
        userHome.resolve(".config/google-chrome"), userHome.resolve(".config/chromium"));

    write(Settings.userFile(env), "{\"sandbox\": {\"hidden\": [\"~/work/secrets\"], \"visible\": [\"~/.npmrc\"]}}");
    write(Settings.projectFile(project), "{\"sandbox\": {\"hidden\": [\"/opt/vault\"], \"visible\": [\"~/.ssh\"]}}");
    Settings.Loaded loaded = Settings.resolve(env, project);
    SandboxPolicy policy = loaded.settings().sandboxPolicy(home, env, userHome);
    assertThat(policy.hidden()).contains(userHome.resolve("work/secrets"), Path.of("/opt/vault"), userHome.resolve(".ssh"))
        .doesNotContain(userHome.resolve(".npmrc"));
    assertThat(loaded.warning()).get().asString().contains("sandbox.visible");

    env.put("HOME", temp.resolve("other-home").toString()); // what commands take ~ for, when it is not Java's user.home
    SandboxPolicy both = loaded.settings().sandboxPolicy(home, env, userHome);
    assertThat(both.hidden()).contains(userHome.resolve(".ssh"), temp.resolve("other-home/.ssh"))
        .doesNotContain(userHome.resolve(".npmrc"), temp.resolve("other-home/.npmrc"));

    write(Settings.userFile(env), "{\"sandbox\": {\"visible\": [\"" + home.root() + "\"]}}");
    assertThatThrownBy(() -> Settings.load(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("is not one of the paths hidden by default");
    write(Settings.userFile(env), "{\"sandbox\": {\"hidden\": [\"secrets\"]}}");
    assertThatThrownBy(() -> Settings.load(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("\"secrets\" is not a path");
  }

  @Test
  void aBadModeOrARelativeDirectoryIsOneLocatedLine() throws Exception {
    write(Settings.userFile(env), "{\n  \"sandbox\": {\"mode\": \"maybe\"}\n}");
    assertThatThrownBy(() -> Settings.load(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("settings.json:2:23: ").hasMessageContaining("use auto, required or off");
    write(Settings.userFile(env), "{\"sandbox\": {\"writable\": [\"cache\"]}}");
    assertThatThrownBy(() -> Settings.load(env, project)).isInstanceOf(Settings.BadSettings.class)
        .hasMessageContaining("\"cache\" is not a directory path");
    write(Settings.userFile(env), "{\"approval\": \"auto\"}");
    assertThat(Settings.load(env, project).approval()).isEqualTo("auto");
  }

  @Test
  void anUntrustedProjectMayTightenTheSandboxButNotLoosenIt() throws Exception {
    write(Settings.userFile(env), "{\"sandbox\": {\"writable\": [\"/opt/mine\"]}}");
    write(Settings.projectFile(project), "{\"sandbox\": {\"mode\": \"off\", \"writable\": [\"~\"], \"network\": true,"
        + " \"gitWritable\": true}}");
    Settings.Loaded loaded = Settings.resolve(env, project);
    SandboxPolicy policy = loaded.settings().sandboxPolicy(new WaymarkHome(temp.resolve("data")), env);
    assertThat(policy.mode()).isEqualTo(SandboxMode.AUTO);
    assertThat(policy.writable()).containsExactly(Path.of("/opt/mine"));
    assertThat(policy.network()).isFalse();
    assertThat(policy.gitWritable()).isFalse();
    assertThat(loaded.warning()).get().asString().contains("sandbox.mode \"off\"", "sandbox.writable", "sandbox.network",
        "sandbox.gitWritable");

    write(Settings.projectFile(project), "{\"sandbox\": {\"mode\": \"required\", \"network\": false}}");
    loaded = Settings.resolve(env, project);
    assertThat(loaded.warning()).isEmpty();
    assertThat(loaded.settings().sandboxPolicy(new WaymarkHome(temp.resolve("data")), env).mode())
        .isEqualTo(SandboxMode.REQUIRED);
  }

  @Test
  void withoutBwrapExecSaysOnceThatCommandsAreNotSandboxedAndRunsThem() throws Exception {
    Path script = Files.writeString(temp.resolve("script.json"), "{\"responses\": [{\"toolCalls\": [{\"name\": "
        + "\"run_shell\", \"arguments\": {\"command\": \"echo ran > ran.txt\"}}]}, {\"text\": \"done\"}]}");
    env.put("PATH", temp.resolve("no-bwrap-here").toString());
    StringWriter err = new StringWriter();
    int status = Main.run(new String[] {"exec", "-C", project.toString(), "--approval", "yolo", "--script",
        script.toString(), "run it"}, new WaymarkHome(temp.resolve("data")), new PrintWriter(new StringWriter()),
        new PrintWriter(err), env);

    assertThat(status).as(err.toString()).isZero();
    assertThat(project.resolve("ran.txt")).hasContent("ran");
    assertThat(err.toString()).containsOnlyOnce("not sandboxed").contains("bwrap was not found on PATH")
        .contains("apt-get install bubblewrap");
  }

  @Test
  void requiredWithoutBwrapRefusesTheCommand() throws Exception {
    write(Settings.userFile(env), "{\"sandbox\": {\"mode\": \"required\"}}");
    Path script = Files.writeString(temp.resolve("script.json"), "{\"responses\": [{\"toolCalls\": [{\"name\": "
        + "\"run_shell\", \"arguments\": {\"command\": \"echo ran > ran.txt\"}}]}, {\"text\": \"done\"}]}");
    env.put("PATH", temp.resolve("no-bwrap-here").toString());
    StringWriter err = new StringWriter();
    Main.run(new String[] {"exec", "-C", project.toString(), "--approval", "yolo", "--script", script.toString(),
        "run it"}, new WaymarkHome(temp.resolve("data")), new PrintWriter(new StringWriter()), new PrintWriter(err), env);

    assertThat(project.resolve("ran.txt")).doesNotExist();
    assertThat(err.toString()).contains("Shell commands are refused: the sandbox is required");
  }

  @Test
  void theFooterSaysWhenAutoHasNoSandbox() {
    var none = ShellSandbox.detect(SandboxPolicy.protecting(temp, temp), "/nonexistent");
    assertThat(UiLauncher.approvalLabel(ApprovalMode.AUTO, none)).isEqualTo("auto (no sandbox)");
    assertThat(UiLauncher.approvalLabel(ApprovalMode.AUTO_EDIT, none)).isEqualTo("auto-edit");
  }
}
