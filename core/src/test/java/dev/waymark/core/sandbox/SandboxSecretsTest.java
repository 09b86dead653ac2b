package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerJournal;
import dev.waymark.core.layer.LayerSupport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The usual secret locations of a home directory, hidden from sandboxed commands: what a planted
 * instruction would have a command {@code cat} into the model's context. The home here is made up
 * under /var/tmp (the sandbox's /tmp is its own), holding each kind of secret.
 */
@Tag("process")
class SandboxSecretsTest {
  Path base;
  Path home;
  Path data;

  @BeforeEach
  void open() throws IOException {
    base = Files.createDirectories(Path.of("/var/tmp", "waymark-secrets-" + UUID.randomUUID())).toRealPath();
    home = Files.createDirectories(base.resolve("home"));
    data = Files.createDirectories(base.resolve("data"));
    for (String secret : List.of(".ssh/id_ed25519", ".aws/credentials", ".gnupg/private-keys-v1.d/key", ".config/gcloud/adc.json",
        ".azure/token", ".kube/config", ".docker/config.json", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
        ".mozilla/firefox/p/logins.json", ".config/google-chrome/Default/Cookies", ".config/chromium/Default/Cookies")) {
      Path file = home.resolve(secret);
      Files.createDirectories(file.getParent());
      Files.writeString(file, "SECRET " + secret + "\n");
    }
    Files.writeString(home.resolve(".docker/daemon.json"), "{}\n"); // beside a hidden file: not a secret
  }

  @AfterEach
  void close() throws IOException {
    try (var walk = Files.walk(base)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private ShellSandbox sandbox(List<Path> hidden) {
    List<Path> all = new ArrayList<>(hidden);
    all.add(data);
    return Bwrap.required(new SandboxPolicy(SandboxMode.AUTO, List.of(), false, false, all, List.of(), List.of(), data));
  }

  static String run(ShellSandbox sandbox, Path project, String script) throws Exception {
    return run(sandbox, project, script, false);
  }

  /** {@code readOnly}: as plan mode runs a command, on the project mounted read-only. */
  static String run(ShellSandbox sandbox, Path project, String script, boolean readOnly) throws Exception {
    List<String> argv = sandbox.wrap(List.of("/bin/bash", "-c", script), project, false, readOnly).argv();
    Process p = new ProcessBuilder(argv).directory(project.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out;
  }

  @Test
  void theUsualSecretsAreHiddenDirectoriesEmptyAndFilesEmpty() throws Exception {
    Path project = Files.createDirectories(base.resolve("project"));
    String out = run(sandbox(SandboxPolicy.secretsIn(home)), project, "cd " + home + " && cat .ssh/id_ed25519 .aws/credentials "
        + ".gnupg/private-keys-v1.d/key .config/gcloud/adc.json .azure/token .kube/config .docker/config.json .netrc "
        + ".git-credentials .npmrc .pypirc .mozilla/firefox/p/logins.json .config/google-chrome/Default/Cookies "
        + ".config/chromium/Default/Cookies; echo ENTRIES $(find .ssh .aws .gnupg -mindepth 1 | wc -l); echo NPMRC-BYTES $(wc -c < .npmrc); cat .docker/daemon.json; "
        + "echo x > .ssh/authorized_keys || echo WRITE-REFUSED");
    assertThat(out).as(out).doesNotContain("SECRET").contains("ENTRIES 0", "NPMRC-BYTES 0", "{}", "WRITE-REFUSED");
    assertThat(home.resolve(".ssh/authorized_keys")).doesNotExist();
  }

  @Test
  void planModesReadOnlyCommandsSeeNoSecretEitherNorTheProjectsSecretsFiles() throws Exception {
    Path project = Files.createDirectories(base.resolve("project"));
    Files.writeString(project.resolve(".env"), "SECRET env\n");
    Files.createDirectories(project.resolve("app/.env.d"));
    Files.writeString(project.resolve("app/.env.d/key"), "SECRET key\n");
    Files.createSymbolicLink(project.resolve("config"), project.resolve(".env"));
    Files.writeString(project.resolve("app/.env.local"), "SECRET env.local\n");
    Files.writeString(project.resolve("app/main.txt"), "main\n");
    ShellSandbox sandbox = sandbox(SandboxPolicy.secretsIn(home));
    String out = run(sandbox, project, "cat .env app/.env.local app/.env.d/key config app/main.txt; cd " + home + " && cat .ssh/id_ed25519 .netrc "
        + ".aws/credentials; grep -r SECRET " + project + "; echo x > " + project.resolve("made.txt") + " || echo WRITE-REFUSED", true);
    assertThat(out).as(out).doesNotContain("SECRET").contains("main", "WRITE-REFUSED");

    String home = run(sandbox, this.home, "cat .ssh/id_ed25519 .netrc; ls -A .aws | wc -l", true);
    assertThat(home).as("plan mode in the home directory itself").doesNotContain("SECRET").contains("0");
    assertThat(run(sandbox, project, "cat .env app/.env.d/key", false)).as("a command that may write runs as the user chose")
        .contains("SECRET env", "SECRET key");
  }

  @Test
  void aHiddenPathInsideTheProjectStaysHiddenWhenTheProjectIsTheHomeDirectory() throws Exception {
    String out = run(sandbox(SandboxPolicy.secretsIn(home)), home, "cat .ssh/id_ed25519 .netrc; echo ok > made.txt; "
        + "echo x > .ssh/x || echo WRITE-REFUSED; rm -rf .aws || echo RM-REFUSED");
    assertThat(out).as(out).doesNotContain("SECRET").contains("WRITE-REFUSED", "RM-REFUSED");
    assertThat(home.resolve("made.txt")).hasContent("ok");
    assertThat(home.resolve(".aws/credentials")).exists();
  }

  @Test
  void inItsCopyOnWriteLayerACommandInTheHomeDirectorySeesNoSecretNorWritesOne() throws Exception {
    ShellSandbox sandbox = sandbox(SandboxPolicy.secretsIn(home));
    Path layers = Files.createDirectories(data.resolve("layers"));
    LayerSupport support = LayerSupport.detect(layers, sandbox.bwrap().orElseThrow(), System.getenv("PATH"));
    assertThat(support.available()).as(support.unavailable()).isTrue();
    Layer layer = new LayerJournal(layers).begin(home, "tab#1", "");
    List<String> argv = sandbox.wrap(List.of("/bin/sh", "-c", "cat .ssh/id_ed25519 .netrc; echo x > .ssh/new || "
        + "echo WRITE-REFUSED; echo ok > made.txt"), layer.project(), false).argv();
    Process p = new ProcessBuilder(support.enter(layer, argv)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).as(out).doesNotContain("SECRET").contains("WRITE-REFUSED");
    assertThat(layer.upper().resolve("made.txt")).as("the command ran in its layer").hasContent("ok");
    assertThat(layer.upper().resolve(".ssh/new")).doesNotExist();
  }

  @Test
  void aProjectInsideAHiddenDirectoryIsNotHiddenButWhatIsBesideItIs() throws Exception {
    Path project = Files.createDirectories(home.resolve(".config/gcloud/project"));
    Files.writeString(project.resolve("main.tf"), "terraform\n");
    String out = run(sandbox(SandboxPolicy.secretsIn(home)), project.toRealPath(), "cat main.tf ../adc.json; echo ok > made.txt");
    assertThat(out).as(out).contains("terraform").doesNotContain("SECRET");
    assertThat(project.resolve("made.txt")).hasContent("ok");

    Path ssh = home.resolve(".ssh").toRealPath(); // the project is the hidden directory itself
    assertThat(run(sandbox(SandboxPolicy.secretsIn(home)), ssh, "cat id_ed25519; echo ok > made.txt")).contains("SECRET");
    assertThat(ssh.resolve("made.txt")).hasContent("ok");
  }

  @Test
  void aLinkInTheProjectToAHiddenPathLeadsToNothing() throws Exception {
    Path project = Files.createDirectories(base.resolve("project"));
    Files.createSymbolicLink(project.resolve("keys"), home.resolve(".ssh"));
    Files.createSymbolicLink(project.resolve("creds"), home.resolve(".git-credentials"));
    Files.createSymbolicLink(home.resolve(".pypirc-link"), home.resolve(".aws/credentials"));
    String out = run(sandbox(SandboxPolicy.secretsIn(home)), project, "cat keys/id_ed25519 creds " + home.resolve(".pypirc-link"));
    assertThat(out).as(out).doesNotContain("SECRET");
  }

  @Test
  void statusNamesWhatIsHiddenThatExistsAndWhetherUnixSocketsAreBlocked() {
    ShellSandbox sandbox = sandbox(SandboxPolicy.secretsIn(home));
    assertThat(sandbox.describeHidden()).contains(home.resolve(".ssh").toString(), home.resolve(".netrc").toString(),
        home.resolve(".docker/config.json").toString()).doesNotContain(".vault-token");
    assertThat(sandbox.describe()).as("what /status and the model are told").contains(sandbox.describeHidden())
        .contains("Unix sockets are blocked");
  }
}
