package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's bin/waymark (src/dist), in a tree of its own with a stand-in runtime that
 * writes down how it was started, and makes an "archive" when asked to; DistIT runs the real one.
 */
class DistLauncherTest {
  @TempDir Path temp;
  Path tree;
  Path calls;

  @BeforeEach
  void tree() throws Exception {
    tree = temp.resolve("unpacked here/waymark-1.0");
    calls = temp.resolve("calls");
    Files.createDirectories(tree.resolve("bin"));
    Files.createDirectories(tree.resolve("lib"));
    Files.createDirectories(tree.resolve("runtime/bin"));
    Files.copy(Path.of("src/dist/bin/waymark"), tree.resolve("bin/waymark"));
    executable(tree.resolve("bin/waymark"));
    Files.writeString(tree.resolve("lib/waymark.jar"), "jar");
    // the training fails while a file named fail-training lies beside the tree's lib
    Path java = tree.resolve("runtime/bin/java");
    Files.writeString(java, """
        #!/bin/sh
        echo "$*" >> '%s'
        for a in "$@"; do
          case "$a" in
            -XX:ArchiveClassesAtExit=*)
              if [ -f "$(dirname "$0")/../../fail-training" ]; then echo 'training: no room' >&2; exit 1; fi
              echo jsa > "${a#-XX:ArchiveClassesAtExit=}"; exit 0 ;;
          esac
        done
        """.formatted(calls));
    executable(java);
  }

  private static void executable(Path file) throws Exception {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Started as a user does, through a symlink elsewhere, with a java on PATH and JAVA_HOME that must not be used. */
  private String start(Path root, String... args) throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path link = bin.resolve("waymark");
    Files.deleteIfExists(link);
    Files.createSymbolicLink(link, root.resolve("bin/waymark"));
    Path other = Files.createDirectories(temp.resolve("other-jdk/bin"));
    Files.writeString(other.resolve("java"), "#!/bin/sh\necho 'the wrong java' >> '" + calls + "'\nexit 3\n");
    executable(other.resolve("java"));
    ProcessBuilder pb = new ProcessBuilder(link.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.command().addAll(List.of(args));
    pb.environment().put("PATH", other + ":/usr/bin:/bin");
    pb.environment().put("JAVA_HOME", other.getParent().toString());
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();
    return err;
  }

  private List<String> calls() throws Exception {
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  @Test
  void theFirstStartMakesTheArchiveForWhereTheTreeIsAndEveryStartUsesIt() throws Exception {
    String first = start(tree, "--version");

    assertThat(first).isEqualTo("waymark: making a class-data archive for a faster start in " + tree.toRealPath()
        + " (once, a few seconds)\n");
    assertThat(Files.readString(tree.resolve("lib/waymark.jsa.place"))).isEqualTo(tree.toRealPath() + "\n");
    assertThat(calls()).hasSize(2).noneMatch(call -> call.contains("wrong java"));
    assertThat(calls().get(1)).isEqualTo("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:SharedArchiveFile="
        + tree.toRealPath().resolve("lib/waymark.jsa") + " -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off -jar "
        + tree.toRealPath().resolve("lib/waymark.jar") + " --version");

    assertThat(start(tree, "--version")).isEmpty();
    assertThat(calls()).hasSize(3).last().asString().contains("-XX:SharedArchiveFile=");
  }

  @Test
  void aTreeThatMovedMakesANewArchiveForItsNewPlace() throws Exception {
    start(tree, "--version");
    Path moved = temp.resolve("moved");
    Files.move(tree, moved);

    assertThat(start(moved, "--version")).startsWith("waymark: making a class-data archive for a faster start in " + moved.toRealPath());
    assertThat(Files.readString(moved.resolve("lib/waymark.jsa.place"))).isEqualTo(moved.toRealPath() + "\n");
    assertThat(calls()).last().asString().contains("-XX:SharedArchiveFile=" + moved.toRealPath().resolve("lib/waymark.jsa"));
  }

  @Test
  void aTrainingThatFailsIsShownOnceWaymarkStartsWithoutTheArchiveAndMakeArchiveTriesAgain() throws Exception {
    Files.writeString(tree.resolve("fail-training"), "");

    String first = start(tree, "--version");
    assertThat(first).contains("training: no room", "waymark: the archive could not be made (above); Waymark starts without it");
    assertThat(calls()).hasSize(2).last().asString().doesNotContain("SharedArchiveFile").endsWith("--version");

    assertThat(start(tree, "--version")).as("not tried at every start").isEmpty();
    assertThat(calls()).hasSize(3).last().asString().doesNotContain("SharedArchiveFile");

    Files.delete(tree.resolve("fail-training"));
    assertThat(start(tree, "--make-archive")).startsWith("waymark: making a class-data archive");
    assertThat(calls()).hasSize(4);
    assertThat(start(tree, "--version")).isEmpty();
    assertThat(calls()).last().asString().contains("-XX:SharedArchiveFile=");
  }
}
