package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sandbox and the layer apply under attack, as a user without privileges runs Waymark: the
 * packaged jar, started as {@code nobody} through {@code setpriv} where the tests run as root (CI),
 * runs a scripted model's commands in {@code auto} (unasked), in one turn: reading the user's SSH
 * key, leaving a git fsmonitor in a repository it makes, replacing a directory by a file, and moving
 * an ignored directory away. Then a headless undo must give everything back.
 */
class AttacksAsAnotherUserIT {
  static final int NOBODY = 65534;
  static final String SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- the user's key";
  final boolean root = "root".equals(System.getProperty("user.name"));
  Path base;
  Path project;
  Path home;

  @BeforeEach
  void setUp() throws Exception {
    if (Stream.of(System.getenv("PATH").split(":")).noneMatch(dir -> Files.isExecutable(Path.of(dir, "bwrap")))) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("no bwrap on PATH (CI must install the package bubblewrap: see .ci/run)");
      }
      assumeTrue(false, "no bwrap on PATH");
    }
    base = Files.createDirectories(Path.of("/var/tmp", "waymark-attacks-" + UUID.randomUUID()));
    project = Files.createDirectories(base.resolve("project"));
    home = Files.createDirectories(base.resolve("home"));
    Files.writeString(Files.createDirectories(home.resolve(".ssh")).resolve("id_ed25519"), SECRET + "\n");
    Files.writeString(project.resolve(".gitignore"), "data/\n");
    Files.writeString(Files.createDirectories(project.resolve("data")).resolve("db.sqlite"), "the user's database\n");
    Files.writeString(Files.createDirectories(project.resolve("docs")).resolve("index.md"), "# Docs\n");
    Files.copy(Path.of(System.getProperty("waymark.jar")), base.resolve("waymark.jar")); // readable where the build is not
    var json = new ObjectMapper();
    var responses = json.createArrayNode();
    for (String command : List.of("cat ~/.ssh/id_ed25519; echo read=$?",
        "git init -q sub && git -C sub config core.fsmonitor 'touch " + base + "/pwned'; "
            + "rm -rf docs && echo see wiki > docs; mv data data-old")) {
      var call = json.createObjectNode().put("name", "run_shell");
      call.putObject("arguments").put("command", command);
      responses.addObject().putArray("toolCalls").add(call);
    }
    responses.addObject().put("text", "done");
    Files.writeString(base.resolve("script.json"), json.writeValueAsString(json.createObjectNode().set("responses", responses)));
    if (root) {
      try (Stream<Path> all = Files.walk(base)) {
        for (Path p : all.toList()) {
          Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
          Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }

  @AfterEach
  void tearDown() throws IOException {
    if (base != null) {
      try (Stream<Path> walk = Files.walk(base)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  record Run(int exit, String out) {}

  private Run waymark(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    if (root) {
      command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
    }
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        base.resolve("waymark.jar").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().put("HOME", home.toString());
    pb.environment().put("WAYMARK_HOME", base.resolve("waymark").toString());
    pb.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    Process process = pb.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), out);
  }

  @Test
  void noGitSettingOutsideWhatGitReadsAsDataLandsAndAFileGitTracksUnderBuildIsRecordedAndUndone() throws Exception {
    Path main = project.resolve("src/com/acme/build/Main.java");
    Files.createDirectories(main.getParent());
    Files.writeString(main, "class Main {}\n");
    for (String[] args : List.of(new String[] {"init", "-q"}, new String[] {"add", "src"},
        new String[] {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sources"})) {
      List<String> command = new ArrayList<>(List.of("git", "-c", "safe.directory=*", "-C", project.toString()));
      command.addAll(List.of(args));
      assertThat(new ProcessBuilder(command).inheritIO().start().waitFor()).isZero();
    }
    var json = new ObjectMapper();
    var responses = json.createArrayNode();
    var call = json.createObjectNode().put("name", "run_shell");
    call.putObject("arguments").put("command", "git init -q sub && git -C sub config gpg.format ssh"
        + " && git -C sub config gpg.ssh.defaultKeyCommand 'touch " + base + "/pwned'"
        + " && sed -i s/Main/Edited/ src/com/acme/build/Main.java");
    responses.addObject().putArray("toolCalls").add(call);
    responses.addObject().put("text", "done");
    Files.writeString(base.resolve("script.json"), json.writeValueAsString(json.createObjectNode().set("responses", responses)));
    if (root) {
      try (Stream<Path> all = Files.walk(base)) {
        for (Path p : all.toList()) {
          Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
          Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }

    Run turn = waymark("exec", "-C", project.toString(), "--provider", "scripted", "--script",
        base.resolve("script.json").toString(), "--approval", "auto", "sign and edit");
    assertThat(turn.out()).as(turn.out()).contains("checkpoint #1").containsIgnoringCase("gpg.");
    Path subConfig = project.resolve("sub/.git/config");
    assertThat(!Files.exists(subConfig) || !Files.readString(subConfig).contains("defaultKeyCommand"))
        .as("no ssh key command left for the user's next signed commit").isTrue();
    assertThat(main).hasContent("class Edited {}");

    Run undo = waymark("checkpoints", "-C", project.toString(), "undo");
    assertThat(undo.exit()).as(undo.out()).isZero();
    assertThat(main).as("the tracked file under a directory named build").hasContent("class Main {}");
    assertThat(base.resolve("pwned")).doesNotExist();
  }

  @Test
  void aTurnOfAttacksRunUnaskedLeaksNothingLeavesNoGitProgramAndUndoGivesEverythingBack() throws Exception {
    Run turn = waymark("exec", "-C", project.toString(), "--provider", "scripted", "--script",
        base.resolve("script.json").toString(), "--approval", "auto", "tidy up");
    assertThat(turn.out()).as(turn.out()).contains("checkpoint #1");

    assertThat(turn.out()).as("the key never reaches the model").doesNotContain("BEGIN OPENSSH").contains("read=");
    try (Stream<Path> files = Files.walk(base.resolve("waymark"))) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).as(file.toString())
            .doesNotContain("BEGIN OPENSSH");
      }
    }
    Path subConfig = project.resolve("sub/.git/config");
    assertThat(!Files.exists(subConfig) || !Files.readString(subConfig).contains("fsmonitor"))
        .as("no fsmonitor left for the user's next git status").isTrue();
    assertThat(turn.out()).contains("fsmonitor");
    assertThat(project.resolve("docs")).isRegularFile().hasContent("see wiki");
    assertThat(project.resolve("data-old/db.sqlite")).hasContent("the user's database");
    assertThat(project.resolve("data")).doesNotExist();
    if (root) {
      assertThat((Integer) Files.getAttribute(project.resolve("docs"), "unix:uid")).isEqualTo(NOBODY);
    }

    Run undo = waymark("checkpoints", "-C", project.toString(), "undo");
    assertThat(undo.exit()).as(undo.out()).isZero();
    assertThat(project.resolve("docs/index.md")).as("the directory the command replaced by a file").hasContent("# Docs");
    assertThat(project.resolve("data/db.sqlite")).as("the ignored directory the command moved away")
        .hasContent("the user's database");
    assertThat(project.resolve("data-old")).doesNotExist();
    assertThat(base.resolve("pwned")).doesNotExist();
  }
}
