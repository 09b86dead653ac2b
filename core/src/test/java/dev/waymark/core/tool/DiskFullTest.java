package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk holding the checkpoint store fills up while the agent edits files: a change that
 * cannot be checkpointed is not made and says why, and nothing recorded before is lost. The store
 * lives on a real 4 MiB tmpfs. Root mounts it here; anyone else gets it inside a user namespace
 * ({@code unshare -rm}), where the scenario runs in a child JVM. Only a machine that allows
 * neither skips the test, and says so.
 */
class DiskFullTest {
  /** Forces the user-namespace route even for root, to test it: {@code -Ddiskfull.namespace=true}. */
  private static final boolean FORCE_NAMESPACE = Boolean.getBoolean("diskfull.namespace");

  @TempDir Path temp;

  @Test
  void aChangeThatCannotBeCheckpointedIsNotMadeAndEarlierOnesAreKept() throws Exception {
    Path home = Files.createDirectories(temp.resolve("home"));
    if (!FORCE_NAMESPACE && run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", home.toString()).exit() == 0) {
      try {
        scenario(temp);
      } finally {
        run("umount", home.toString());
      }
      return;
    }
    Result probe = run("unshare", "-rm", "true");
    Assumptions.assumeTrue(probe.exit() == 0,
        "needs root or user namespaces to mount a small tmpfs: " + probe.output().strip());
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Result child = run("unshare", "-rm", "sh", "-c",
        "mount -t tmpfs -o size=4m tmpfs \"$1\" && exec \"$2\" -XX:+UseSerialGC -cp \"$3\" " + DiskFullTest.class.getName() + " \"$4\"",
        "sh", home.toString(), java.toString(), System.getProperty("java.class.path"), temp.toString());
    assertThat(child.exit()).as("the scenario in a user namespace:\n%s", child.output()).isZero();
    assertThat(child.output()).contains("disk full scenario passed");
  }

  /** The scenario in a child JVM whose mount namespace holds the tmpfs. */
  public static void main(String[] args) {
    try {
      scenario(Path.of(args[0]));
      System.out.println("disk full scenario passed");
      System.exit(0);
    } catch (Throwable e) {
      e.printStackTrace(System.out);
      System.exit(1);
    }
  }

  /** {@code temp/home} is a 4 MiB file system; the project is beside it, on the big disk. */
  static void scenario(Path temp) throws Exception {
    try (ToolFixture f = new ToolFixture(temp)) {
      Random random = new Random(1);
      f.write("precious.txt", "the user's own work\n");
      List<String> written = new ArrayList<>();
      ToolResult failed = null;
      for (int i = 0; i < 20 && failed == null; i++) {
        String content = noise(random, 700_000);
        ToolResult r = f.call("write_file", "path", "big" + i + ".txt", "content", content);
        if (r.isError()) {
          failed = r;
          assertThat(f.file("big" + i + ".txt")).as("the change that could not be recorded was not made").doesNotExist();
        } else {
          written.add("big" + i + ".txt");
        }
      }
      assertThat(failed).as("the 4 MiB store filled up").isNotNull();
      assertThat(failed.content()).contains("could not be checkpointed", "the change was not made");
      assertThat(written).isNotEmpty();
      assertThat(f.recorded()).containsExactlyElementsOf(written.stream().sorted().toList());

      ToolResult overwrite = f.call("write_file", "path", "precious.txt", "content", noise(random, 2_000_000));
      assertThat(overwrite.isError()).isTrue();
      assertThat(f.read("precious.txt")).as("an existing file is left as it was").isEqualTo("the user's own work\n");
    }
  }

  /** Base64 of random bytes: text that does not compress. */
  private static String noise(Random random, int bytes) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return Base64.getEncoder().encodeToString(b);
  }

  private record Result(int exit, String output) {}

  private static Result run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Result(-1, out + "\n(timed out)");
    }
    return new Result(p.exitValue(), out);
  }
}
