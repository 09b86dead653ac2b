package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** app/bin/waymark, copied into a tree of its own and run with a stand-in {@code mvn} and {@code java} on the PATH. */
class LauncherTest {
  @TempDir Path temp;
  Path root;
  Path fakes;

  @BeforeEach
  void tree() throws Exception {
    root = temp.resolve("waymark");
    Files.createDirectories(root.resolve("app/bin"));
    Files.createDirectories(root.resolve("app/src/main"));
    Files.writeString(root.resolve("pom.xml"), "<project/>");
    Files.copy(Path.of("bin/waymark"), root.resolve("app/bin/waymark"));
    executable(root.resolve("app/bin/waymark"));
    fakes = Files.createDirectories(temp.resolve("fakes"));
    Path java = fakes.resolve("java");
    Files.writeString(java, "#!/bin/sh\necho \"$@\" > '" + temp.resolve("java-args") + "'\n");
    executable(java);
  }

  private static void executable(Path file) throws Exception {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private void fakeMaven(String body) throws Exception {
    Path mvn = fakes.resolve("mvn");
    Files.writeString(mvn, "#!/bin/sh\n" + body);
    executable(mvn);
  }

  private record Result(int status, String stderr) {}

  private Result launch() throws Exception {
    ProcessBuilder pb = new ProcessBuilder(root.resolve("app/bin/waymark").toString(), "--version")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("PATH", fakes + ":" + System.getenv("PATH"));
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), err);
  }

  @Test
  void aFirstBuildShowsALinePerModuleThenStartsWithTheClassDataArchive() throws Exception {
    fakeMaven("""
        echo '[INFO] Scanning for projects...'
        echo '[INFO] Building Waymark 0.1.0-SNAPSHOT                                    [1/4]'
        echo '[INFO] Building Waymark core 0.1.0-SNAPSHOT                               [2/4]'
        echo '[INFO] --- maven-compiler-plugin:3.13.0:compile (default-compile) @ waymark-core ---'
        echo '[INFO] Building Waymark application 0.1.0-SNAPSHOT                        [4/4]'
        echo '[INFO] --- exec-maven-plugin:3.5.0:exec (cds-archive) @ waymark-app ---'
        mkdir -p app/target && echo jar > app/target/waymark.jar && sleep 1 && echo jsa > app/target/waymark.jsa
        """);
    Result result = launch();

    assertThat(result.status()).isZero();
    assertThat(result.stderr()).containsSubsequence("waymark: building", "waymark:   Waymark 0.1.0-SNAPSHOT [1/4]",
        "waymark:   Waymark core 0.1.0-SNAPSHOT [2/4]", "waymark:   Waymark application 0.1.0-SNAPSHOT [4/4]",
        "class-data archive", "waymark: built").doesNotContain("maven-compiler-plugin", "Scanning");
    assertThat(Files.readString(temp.resolve("java-args")))
        .contains("-XX:SharedArchiveFile=" + root.resolve("app/target/waymark.jsa"), "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC", "-jar " + root.resolve("app/target/waymark.jar") + " --version");
  }

  @Test
  void aFailedBuildShowsMavensWholeOutputAndStartsNothing() throws Exception {
    fakeMaven("""
        echo '[INFO] Building Waymark core 0.1.0-SNAPSHOT                               [2/4]'
        echo '[ERROR] COMPILATION ERROR: Foo.java:[3,1] boom'
        exit 1
        """);
    Result result = launch();

    assertThat(result.status()).isEqualTo(1);
    assertThat(result.stderr()).contains("[ERROR] COMPILATION ERROR: Foo.java:[3,1] boom", "waymark: the build failed");
    assertThat(temp.resolve("java-args")).doesNotExist();
  }

  @Test
  void withoutAnArchiveOrWithAStaleOneItStartsWithoutIt() throws Exception {
    Files.createDirectories(root.resolve("app/target"));
    Files.writeString(root.resolve("app/target/waymark.jsa"), "old");
    Files.setLastModifiedTime(root.resolve("app/target/waymark.jsa"), // made a minute ago: no wait for the clock
        FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    Files.writeString(root.resolve("app/target/waymark.jar"), "jar"); // newer than the archive, and than the sources
    Result result = launch();

    assertThat(result.status()).isZero();
    assertThat(result.stderr()).doesNotContain("building");
    assertThat(Files.readString(temp.resolve("java-args"))).doesNotContain("SharedArchiveFile").contains("-jar");
  }
}
