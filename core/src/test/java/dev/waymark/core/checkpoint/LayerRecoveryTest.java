package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.testing.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Waymark killed while a sandboxed command runs in its layer: the next one applies and records the layer, and says so. */
@Tag("process")
class LayerRecoveryTest {
  @TempDir Path temp;

  @Test
  void aLayerLeftByAKilledWaymarkIsAppliedAndRecordedWhenTheTabIsOpenedAgain() throws Exception {
    StoreFixture f = new StoreFixture(temp);
    Files.writeString(f.file("a.txt"), "before\n");
    ShellSandbox sandbox = Bwrap.required(SandboxPolicy.protecting(f.home, temp.resolve("config")));
    CheckpointTree tab = f.store.openTab("tab1");
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot();
    Turn.ShellCapture layers = turn.shellCapture(sandbox.bwrap());
    assertThat(layers.noLayer()).as(layers.noLayer().orElse("")).isEmpty();
    CommandMark mark = CommandMark.random();
    WorkTreeSnapshot layer = turn.snapshotWorkTree(layers.capture(), Long.MAX_VALUE, mark);
    ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c",
        "echo during > a.txt; echo new > new.txt; sleep 30; echo late > late.txt"), f.project.toRealPath(), false);
    ProcessBuilder builder = new ProcessBuilder(layer.enter(wrapped.argv())).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put(CommandMark.VARIABLE, mark.value());
    Process running = builder.start();
    try {
      Path layersRoot = f.store.shadowDirectory().resolveSibling("layers");
      Eventually.until("the command wrote new.txt in its layer", () -> written(layersRoot));
      assertThat(f.exists("new.txt")).as("the project does not change while the command runs").isFalse();
      // Waymark is killed here: its layer stays, with a journal naming a process that is gone
      f.store.close();
      try (Stream<Path> journals = Files.walk(layersRoot)) {
        for (Path journal : journals.filter(p -> p.getFileName().toString().equals("layer.json")).toList()) {
          Files.writeString(journal, Files.readString(journal).replaceAll("\"pid\":\\d+", "\"pid\":999999999"));
        }
      }

      try (ShadowStore reopened = f.openAgain()) {
        RestoredTab restored = reopened.restoreTab(saved);
        assertThat(running.waitFor(5, TimeUnit.SECONDS)).as("the command was stopped").isTrue();
        assertThat(restored.shellRecovered()).anySatisfy(note -> assertThat(note).contains("interrupted")
            .contains("checkpoint #1"));
        assertThat(f.read("a.txt")).isEqualTo("during\n");
        assertThat(f.read("new.txt")).isEqualTo("new\n");
        assertThat(f.exists("late.txt")).isFalse();
        CheckpointTree back = restored.tree();
        assertThat(back.checkpoints().get(1).changes()).extracting(FileChange::path).containsExactly("a.txt", "new.txt");
        assertThat(back.undo().applied()).isTrue();
        assertThat(f.read("a.txt")).isEqualTo("before\n");
        assertThat(f.exists("new.txt")).isFalse();
        try (Stream<Path> left = Files.list(layersRoot)) {
          assertThat(left.filter(p -> p.getFileName().toString().startsWith("layer-"))).as("the layer is gone").isEmpty();
        }
      }
    } finally {
      running.destroyForcibly();
    }
  }

  private static boolean written(Path layersRoot) throws IOException {
    try (Stream<Path> all = Files.walk(layersRoot)) {
      return all.anyMatch(p -> p.getFileName().toString().equals("new.txt"));
    }
  }
}
