package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  @TempDir Path temp;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Main.run(args, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void versionPrintsTheBuildVersion() {
    assertThat(run("--version")).isZero();
    assertThat(out.toString()).matches("waymark \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");
  }

  @Test
  void helpDescribesTheInterfaceAndTheCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("Usage: waymark", "[DIR]", "exec", "store", "--approval", "full-screen interface");
  }

  @Test
  void badRestoreAndRevertArgumentsAreSaidBeforeAnythingOpens() {
    String[][] bad = {{"checkpoints", "restore", "1", "--"}, {"checkpoints", "revert", "4..2"},
        {"checkpoints", "restore", "1", "bogus"}, {"checkpoints", "revert", "2", "a.txt"},
        {"checkpoints", "list", "x", "y"}, {"checkpoints", "undo", "--delete", "x"}};
    String[] said = {"Name the files after \"--\"", "2..4", "Restore what? \"bogus\"", "Usage: `checkpoints revert",
        "takes no more than one argument", "--delete goes with save"};
    for (int i = 0; i < bad.length; i++) {
      err.getBuffer().setLength(0);
      assertThat(run(bad[i])).as(String.join(" ", bad[i])).isEqualTo(2);
      assertThat(err.toString()).as(String.join(" ", bad[i])).contains(said[i]);
    }
  }

  @Test
  void everyHelpTextWrapsAtEightyColumnsWithoutStrandedWords() {
    for (String[] args : new String[][] {{"--help"}, {"exec", "--help"}, {"store", "--help"}, {"checkpoints", "--help"},
        {"sessions", "--help"}}) {
      out.getBuffer().setLength(0);
      assertThat(run(args)).isZero();
      String help = out.toString();
      List<String> lines = help.lines().toList();
      assertThat(lines).as(String.join(" ", args)).allMatch(l -> l.length() <= 80);
      for (int i = 0; i + 1 < lines.size(); i++) {
        assertThat(lines.get(i).startsWith("  ") && !lines.get(i + 1).isBlank() && !lines.get(i + 1).startsWith(" ")
            && !lines.get(i + 1).matches("[A-Z][a-z]+\\W.*"))
            .as("an indented line wrapped to column 0 before \"%s\" in %s:%n%s", lines.get(i + 1), String.join(" ", args), help)
            .isFalse();
        boolean continued = lines.get(i + 1).matches("[a-z0-9(].*");
        assertThat(lines.get(i).isBlank() || lines.get(i).length() >= 60 || !continued)
            .as("a sentence broken short before \"%s\" in %s:%n%s", lines.get(i + 1), String.join(" ", args), help).isTrue();
      }
    }
  }

  @Test
  void withoutATerminalTheInterfaceSaysToUseExec() {
    assertThat(run(temp.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("needs a terminal", "waymark exec");
  }

  @Test
  void aProjectThatIsNoDirectoryIsRefused() {
    assertThat(run(temp.resolve("nope").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("Not a directory");
  }

  @Test
  void aPromptTypedWhereTheDirectoryGoesIsAnsweredWithHowToRunIt() {
    assertThat(run("say hello")).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("waymark: \"say hello\" is no directory here. To give it to the agent: "
        + "waymark exec \"say hello\" (headless), or start waymark and type it." + System.lineSeparator());
    err.getBuffer().setLength(0);
    assertThat(run("fix the $PATH \"bug\"")).isEqualTo(2);
    assertThat(err.toString()).as("quoted so that the shell passes it as typed")
        .contains("waymark exec 'fix the $PATH \"bug\"'");
    err.getBuffer().setLength(0);
    assertThat(run("it's broken")).isEqualTo(2);
    assertThat(err.toString()).contains("waymark exec \"it's broken\"");
  }

  @Test
  void storeShowsTheShadowRepositoryOutsideTheProject() throws Exception {
    Path project = Files.createDirectories(temp.resolve("my project"));
    assertThat(run("store", "-C", project.toString())).isZero();
    assertThat(out.toString())
        .contains("Project:           " + project)
        .contains("Shadow repository: none yet; the first checkpoint makes it in " + temp.resolve("home/projects"))
        .contains("Tabs with checkpoints: none yet");
    assertThat(err.toString()).isEmpty();
    try (var files = Files.list(project)) {
      assertThat(files).isEmpty();
    }
    assertThat(temp.resolve("home/projects")).as("asking makes no store").doesNotExist();

    ShadowStore.open(project, new WaymarkHome(temp.resolve("home")),
        RetentionPolicy.DEFAULT).close();
    out.getBuffer().setLength(0);
    assertThat(run("store", "-C", project.toString())).isZero();
    assertThat(out.toString())
        .contains("Project:           " + project.toRealPath())
        .contains("Shadow repository: " + temp.resolve("home/projects"))
        .doesNotContain("none yet;")
        .contains("Tabs with checkpoints: none yet");
  }

  @Test
  void aMissingProjectDirectoryGetsOneClearLine() {
    assertThat(run("store", "-C", temp.resolve("nope").toString())).isEqualTo(1);
    assertThat(err.toString()).startsWith("waymark: The project directory ").contains("does not exist").doesNotContain("Exception");
  }

  @Test
  void aDirectoryOrOptionBeforeACommandIsRefusedNotIgnored() throws Exception {
    // `waymark ~/other exec ...` once ran the agent in the current directory, and `waymark --approval ask exec`
    // ran it with the settings' approval: both are what the command's own -C and options are for
    Path project = Files.createDirectories(temp.resolve("project"));
    Path script = Files.writeString(temp.resolve("script.json"), "{\"responses\": [{\"text\": \"hi\"}]}");
    String[][] misplaced = {
        {project.toString(), "exec", "--script", script.toString(), "hello"},
        {"--approval", "ask", "exec", "-C", project.toString(), "--script", script.toString(), "hello"},
        {project.toString(), "checkpoints", "list"},
        {"--continue", "sessions"}};
    for (String[] args : misplaced) {
      err.getBuffer().setLength(0);
      assertThat(run(args)).as(String.join(" ", args)).isEqualTo(2);
      assertThat(err.toString()).as(String.join(" ", args)).contains("after the command");
    }
    assertThat(err.toString()).contains("waymark sessions").contains("--continue");
    try (var files = Files.list(project)) {
      assertThat(files).isEmpty();
    }
    assertThat(temp.resolve("home/projects")).doesNotExist();
  }

  @Test
  void aDirectoryGivenAsDashCBeforeTheCommandGoesToTheCommandAsGitTakesIt() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path script = Files.writeString(temp.resolve("script.json"), "{\"responses\": [{\"text\": \"hi\"}]}");
    Map<String, String> env = Map.of("XDG_CONFIG_HOME", temp.resolve("config").toString());
    int status = Main.run(new String[] {"-C", project.toString(), "exec", "--script", script.toString(), "hello"},
        new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true), env);

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).contains("hi");
    assertThat(err.toString()).doesNotContain("Unknown option");
    out.getBuffer().setLength(0);
    assertThat(run("-C", project.toString(), "sessions", "list")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("1 tab, 1 checkpoint");
  }

  @Test
  void twoDirectoriesOrMoreThanDashCBeforeTheCommandAreRefused() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    assertThat(run("-C", project.toString(), "store", "-C", temp.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("before the command would be ignored");
    err.getBuffer().setLength(0);
    assertThat(run("-C", project.toString(), "--approval", "ask", "store")).isEqualTo(2);
    assertThat(err.toString()).contains("'-C " + project + " --approval ask' before the command");
    err.getBuffer().setLength(0);
    assertThat(run("-C", project.toString(), project.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("not both");
  }

  @Test
  void theReadmeGivesTheDefaultTabTheHelpGives() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    for (String command : List.of("checkpoints", "exec")) {
      out.getBuffer().setLength(0);
      assertThat(run(command, "--help")).isZero();
      assertThat(out.toString().replaceAll("\\s+", " ")).contains("active tab, else its first open one");
    }
    assertThat(readme).contains("`--tab ID` (default: the session's active tab, else its first open one)")
        .doesNotContain("(default: the session's first)");
  }

  @Test
  void execWithoutAKeySaysWhatToSetInOneLineWithoutTheWholeUsage() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    int status = Main.run(new String[] {"exec", "-C", project.toString(), "hello"}, new WaymarkHome(temp.resolve("home")),
        new PrintWriter(out, true), new PrintWriter(err, true),
        Map.of("XDG_CONFIG_HOME", temp.resolve("config").toString()));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString()).startsWith("waymark: Set OPENAI_API_KEY to use OpenAI").contains("waymark exec --help")
        .doesNotContain("Usage:").hasLineCount(1);
  }

  @Test
  void anUnknownOptionIsReportedWithUsage() {
    assertThat(run("--frobnicate")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--frobnicate'");
  }

  @Test
  void aSessionThatCannotBeFoundIsOneLineWithNoJavaClassName() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path script = Files.writeString(temp.resolve("script.json"), "{\"turns\": []}");
    Map<String, String> env = Map.of("XDG_CONFIG_HOME", temp.resolve("config").toString());
    int status = Main.run(new String[] {"exec", "-C", project.toString(), "--script", script.toString(), "--session", "nope",
        "hi"}, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true), env);
    assertThat(status).isEqualTo(1);
    assertThat(err.toString()).startsWith("waymark: ").contains("nope").hasLineCount(1)
        .doesNotContain("dev.waymark").doesNotContainPattern("\\w+Exception");
  }
}
