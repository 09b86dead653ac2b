package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar as a user starts it: only the command's own output reaches the terminal. */
class PackagedJarIT {
  @TempDir Path temp;

  record Run(int exit, String out, String err) {}

  private Run waymark(String... args) throws Exception {
    return java(List.of("-jar", System.getProperty("waymark.jar")), args);
  }

  private Run java(List<String> options, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(options);
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("WAYMARK_HOME", temp.resolve("home").toString());
    pb.environment().put("HOME", temp.resolve("user").toString());
    Path out = temp.resolve("out.txt");
    Path err = temp.resolve("err.txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process process = pb.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void storePrintsItsReportAndNothingElse() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "a\n");

    Run run = waymark("store", "-C", project.toString());

    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.out().lines()).hasSize(3); // a project with no store yet: asking makes none
    assertThat(run.out()).startsWith("Project:           " + project.toRealPath()).contains("none yet");
    Path log = temp.resolve("home/logs/waymark.log");
    assertThat(log).exists();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log))).isEqualTo("rw-------");
    assertThat(temp.resolve("user/.config/jgit")).doesNotExist();
  }

  @Test
  void theJarOpensTheJdksFileSystemPackageSoFileStatsNeedNoMapPerFile() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "a\n");
    Path script = temp.resolve("shell.json");
    Files.writeString(script, ("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':'echo b > b.txt'}}]},"
        + "{'text':'done'}]}").replace('\'', '"'));
    List<String> exec = List.of("exec", "-C", project.toString(), "--script", script.toString(), "--approval", "yolo", "go");
    Path log = temp.resolve("home/logs/waymark.log");
    String slower = "file stats go through the JDK's attribute map";

    // on the class path the manifest's Add-Opens does not apply: the slower way, said in the log
    List<String> onClassPath = new ArrayList<>(List.of("dev.waymark.app.Main"));
    onClassPath.addAll(exec);
    Run plain = java(List.of("-cp", System.getProperty("waymark.jar")), onClassPath.toArray(String[]::new));
    assertThat(plain.exit()).as(plain.err()).isZero();
    assertThat(Files.readString(log)).contains(slower);
    Files.delete(log);

    Run jar = waymark(exec.toArray(String[]::new));
    assertThat(jar.exit()).as(jar.err()).isZero();
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("b\n");
    assertThat(Files.exists(log) ? Files.readString(log) : "").doesNotContain(slower);
  }

  @Test
  void versionWorksFromTheJar() throws Exception {
    Run run = waymark("--version");
    assertThat(run.exit()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).startsWith("waymark ");
  }
}
