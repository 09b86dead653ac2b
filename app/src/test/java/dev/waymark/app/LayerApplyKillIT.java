package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.FileTrees;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waymark killed with SIGKILL while it applies a sandboxed command's layer that empties a directory
 * and refills it with thousands of files: the next start finishes the apply (nothing it already
 * moved is told as changed by someone else), and undo brings back the project as it was.
 */
class LayerApplyKillIT {
  private static final int FILES = 10_000;

  @TempDir Path temp;

  @Test
  void aKillWhileTheLayerIsAppliedEndsAsIfTheApplyHadFinishedAndUndoRestoresTheProject() throws Exception {
    Path home = temp.resolve("home");
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.createDirectories(project.resolve("out"));
    for (int i = 1; i <= 3; i++) {
      Files.writeString(project.resolve("out/old" + i), "old " + i + "\n");
    }
    Files.writeString(project.resolve("keep.txt"), "kept\n");
    SortedMap<String, String> before = tree(project);
    // a sandbox that cannot start fails the command, and with it this test (never skipped)
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"), "{\"sandbox\": {\"mode\": \"required\"}}");
    Path script = temp.resolve("script.json");
    Files.writeString(script, ("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':"
        + "'rm -rf out && mkdir out && cd out && seq -f f%g 1 " + FILES + " | xargs touch'}}]},{'text':'done'}]}").replace('\'', '"'));

    Process running = Waymark.process(temp, home, project,
        Waymark.command(List.of(), List.of("exec", "--script", script.toString(), "--approval", "auto", "refill out")))
        .redirectOutput(temp.resolve("out.txt").toFile()).redirectError(temp.resolve("err.txt").toFile()).start();
    try {
      // killed as soon as the apply moved the command's first file: thousands are still to be moved
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!Files.exists(project.resolve("out/f1")) && running.isAlive()) {
        assertThat(System.nanoTime()).as("the layer's apply began").isLessThan(end);
        Thread.onSpinWait();
      }
    } finally {
      running.destroyForcibly(); // SIGKILL
      running.waitFor(10, TimeUnit.SECONDS);
    }
    Optional<Path> plan = applying(home);
    assertThat(plan).as("killed during the apply, its plan left: "
        + Files.readString(temp.resolve("err.txt"), StandardCharsets.UTF_8)).isPresent();
    try (Stream<Path> moved = Files.list(project.resolve("out"))) {
      long made = moved.filter(p -> p.getFileName().toString().startsWith("f")).count();
      assertThat(made).as("some of the command's files were moved, not all").isBetween(1L, FILES - 1L);
    }

    ProcessBuilder undo = Waymark.process(temp, home, project, Waymark.command(List.of(), List.of("checkpoints", "undo")));
    Process u = undo.redirectErrorStream(true).redirectOutput(temp.resolve("undo.txt").toFile()).start();
    assertThat(u.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String said = Files.readString(temp.resolve("undo.txt"), StandardCharsets.UTF_8);
    assertThat(u.exitValue()).as(said).isZero();
    assertThat(said).as("nothing the apply moved is taken for someone else's change").doesNotContain("while the command ran");
    assertThat(tree(project)).as("undo brings back the project as it was before the command")
        .isEqualTo(before);
  }

  /** The project's entries, without a mount point the killed sandbox may have left. */
  private static SortedMap<String, String> tree(Path project) {
    return FileTrees.snapshot(project, false, rel -> !rel.equals(".waymark") && !rel.startsWith(".waymark/"));
  }

  /** The plan of a layer's apply under {@code home}, once one is written. */
  private static Optional<Path> applying(Path home) throws Exception {
    Path projects = home.resolve("projects");
    if (!Files.isDirectory(projects)) {
      return Optional.empty();
    }
    try (Stream<Path> found = Files.find(projects, 4, (p, a) -> p.getFileName().toString().equals("applying.json"))) {
      return found.findFirst();
    } catch (UncheckedIOException gone) {
      return Optional.empty(); // a layer removed while it was looked at
    }
  }
}
