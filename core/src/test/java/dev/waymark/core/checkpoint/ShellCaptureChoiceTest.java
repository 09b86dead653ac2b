package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn chooses how a shell command's changes are found, and whoever runs the command treats
 * both captures alike: by observation (commands take turns) without a sandbox, in a layer of its
 * own (commands run at once) with one.
 */
class ShellCaptureChoiceTest {
  @TempDir Path temp;

  @Test
  void withoutASandboxACommandIsCapturedByObservationAndTakesTurns() throws Exception {
    try (StoreFixture f = new StoreFixture(temp)) {
      Turn turn = f.store.openTab("tab1").begin();
      Turn.ShellCapture chosen = turn.shellCapture(Optional.empty());
      assertThat(chosen.noLayer()).contains("commands are not sandboxed");
      assertThat(chosen.capture().takesTurns()).isTrue();
      WorkTreeSnapshot command = turn.snapshotWorkTree(chosen.capture(), 1 << 20, CommandMark.random());
      assertThat(command.enter(List.of("/bin/sh", "-c", "true"))).as("run as it is")
          .containsExactly("/bin/sh", "-c", "true");
      Files.writeString(f.file("a.txt"), "new\n");
      assertThat(command.recordChanges().recorded()).hasSize(1);
      assertThat(command.notApplied()).isEmpty();
    }
  }

  @Test
  void inASandboxThatCanHoldALayerACommandRunsInItsOwnLayerWithoutTakingTurns() throws Exception {
    try (StoreFixture f = new StoreFixture(temp)) {
      ShellSandbox sandbox = Bwrap.required(SandboxPolicy.protecting(f.home, temp.resolve("config")));
      Turn turn = f.store.openTab("tab1").begin();
      Turn.ShellCapture chosen = turn.shellCapture(sandbox.bwrap());
      assumeTrue(chosen.noLayer().isEmpty(), () -> "no layers here: " + chosen.noLayer().orElse(""));
      assertThat(chosen.capture().takesTurns()).isFalse();
      WorkTreeSnapshot command = turn.snapshotWorkTree(chosen.capture(), 1 << 20, CommandMark.random());
      List<String> argv = List.of("/bin/sh", "-c", "true");
      assertThat(command.enter(argv)).as("entered in its layer").hasSizeGreaterThan(argv.size()).endsWith("true");
      assertThat(command.recordChanges().recorded()).as("an empty layer changed nothing").isEmpty();
    }
  }
}
