package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk holding the checkpoint store fills up while the agent edits files: the edit that
 * cannot be checkpointed is undone and says why, and nothing recorded before is lost. Runs on a
 * 4 MiB tmpfs, so it needs root (CI runs as root); elsewhere it is skipped with that reason.
 */
class DiskFullTest {
  @TempDir Path temp;
  Path home;
  boolean mounted;
  ToolFixture f;

  @BeforeEach
  void mount() throws Exception {
    home = Files.createDirectories(temp.resolve("home"));
    Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", home.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    mounted = p.waitFor() == 0;
    Assumptions.assumeTrue(mounted, "mounting a tmpfs needs root: " + out.strip());
    f = new ToolFixture(temp);
  }

  @AfterEach
  void unmount() throws Exception {
    if (f != null) {
      f.close();
    }
    if (mounted) {
      new ProcessBuilder("umount", home.toString()).start().waitFor();
    }
  }

  @Test
  void anEditThatCannotBeCheckpointedIsUndoneAndEarlierOnesAreKept() throws Exception {
    Random random = new Random(1);
    f.write("precious.txt", "the user's own work\n");
    List<String> written = new ArrayList<>();
    ToolResult failed = null;
    for (int i = 0; i < 20 && failed == null; i++) {
      byte[] bytes = new byte[700_000];
      random.nextBytes(bytes);
      String content = java.util.Base64.getEncoder().encodeToString(bytes); // incompressible text
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

    byte[] noise = new byte[2_000_000];
    random.nextBytes(noise);
    ToolResult overwrite = f.call("write_file", "path", "precious.txt", "content", java.util.Base64.getEncoder().encodeToString(noise));
    assertThat(overwrite.isError()).isTrue();
    assertThat(f.read("precious.txt")).as("an edit of an existing file is put back").isEqualTo("the user's own work\n");
  }
}
