package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.WaymarkHome;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where shell commands run in copy-on-write layers, no process walks the project: a turn whose
 * sandboxed command changes a file, and a headless undo of it, leave no scan behind (the comparison
 * capture's stat cache, which every walk ends by writing, is never made).
 */
@Timeout(120)
@Tag("process")
class SandboxedTurnsWalkNothingTest {
  @TempDir Path temp;
  Path project;
  final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    for (int i = 0; i < 50; i++) {
      Files.writeString(Files.createDirectories(project.resolve("d" + i)).resolve("f.txt"), "f\n");
    }
    Files.writeString(project.resolve("a.txt"), "A\n");
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    env.put("PATH", System.getenv("PATH"));
    if (Stream.of(System.getenv("PATH").split(":")).noneMatch(dir -> Files.isExecutable(Path.of(dir, "bwrap")))) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("no bwrap on PATH (CI must install the package bubblewrap: see .ci/run)");
      }
      assumeTrue(false, "no bwrap on PATH");
    }
  }

  @Test
  void aSandboxedCommandsTurnAndAHeadlessUndoOfItNeverScanTheProject() throws Exception {
    String script = Files.writeString(temp.resolve("script.json"), """
        {"responses": [
          {"text": "appending", "toolCalls": [{"name": "run_shell", "arguments": {"command": "echo B >> a.txt"}}]},
          {"text": "Done."}
        ]}""").toString();

    String turn = run("exec", "-C", project.toString(), "--provider", "scripted", "--script", script, "--approval", "auto",
        "append B");
    assertThat(turn).contains("checkpoint #1");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\nB\n");

    String undo = run("checkpoints", "-C", project.toString(), "undo");
    assertThat(undo).contains("Restored #0");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("A\n");

    try (Stream<Path> stores = Files.list(temp.resolve("home/projects"))) {
      Path store = stores.findFirst().orElseThrow();
      assertThat(store.resolve("stat-cache.bin")).as("the comparison capture's scan, never needed here").doesNotExist();
    }
  }

  private String run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true),
        env, new Stdin(new ByteArrayInputStream(new byte[0]), false));
    assertThat(exit).as(err.toString()).isZero();
    return out + err.toString();
  }
}
