package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.layer.ApplyKills;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.testing.FileTrees;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tag;
import net.jqwik.api.constraints.IntRange;

/**
 * A Waymark killed at any step of a layer's apply (here, while it moves a command's files into a
 * directory the command emptied and refilled, deletes a tree, makes a file a directory): at the next start the project is
 * exactly as if the apply had finished, nothing is told as changed by someone else, and undo then
 * brings back the project as it was before the command.
 */
@Tag("load")
@Tag("process")
class LayerApplyKillProperties {
  static final String COMMAND = "rm -rf out && mkdir out && for i in $(seq 1 30); do echo $i > out/f$i; done;"
      + " echo again > out/old1; echo changed > a.txt; rm -rf d;"
      + " rm e && mkdir e && echo in > e/x; rm gone.txt; mkdir -p n/m && echo deep > n/m/k";

  @Property(tries = 12, shrinking = ShrinkingMode.OFF)
  void aKillAtAnyStepOfTheApplyEndsAsIfItHadFinished(@ForAll @IntRange(min = 1, max = 60) int killedAfter)
      throws Exception {
    Path temp = Files.createTempDirectory("layer-kill");
    try {
      StoreFixture f = new StoreFixture(temp);
      for (int i = 1; i <= 4; i++) {
        f.writeExternally("out/old" + i, "old " + i + "\n");
      }
      f.writeExternally("a.txt", "a\n");
      f.writeExternally("d/x.txt", "x\n");
      f.writeExternally("d/y/z.txt", "z\n");
      f.writeExternally("e", "a file\n");
      f.writeExternally("gone.txt", "gone\n");
      SortedMap<String, String> before = tree(f.project);
      Path reference = Files.createDirectories(temp.resolve("reference"));
      run(new ProcessBuilder("/bin/sh", "-c", "cp -a " + f.project + "/. . && " + COMMAND).directory(reference.toFile()));
      SortedMap<String, String> finished = tree(reference);

      ShellSandbox sandbox = Bwrap.required(SandboxPolicy.protecting(f.home, temp.resolve("config")));
      CheckpointTree tab = f.store.openTab("tab1");
      Turn turn = tab.begin();
      TreeSnapshot saved = tab.snapshot();
      Turn.ShellCapture layers = turn.shellCapture(sandbox.bwrap());
      assertThat(layers.noLayer()).as(layers.noLayer().orElse("")).isEmpty();
      CommandMark mark = CommandMark.random();
      WorkTreeSnapshot layer = turn.snapshotWorkTree(layers.capture(), Long.MAX_VALUE, mark);
      ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", COMMAND), f.project.toRealPath(), false);
      ProcessBuilder command = new ProcessBuilder(layer.enter(wrapped.argv()));
      command.environment().put(CommandMark.VARIABLE, mark.value());
      run(command);
      try (AutoCloseable kill = ApplyKills.after(killedAfter)) {
        layer.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
      } catch (CheckpointException killed) {
        assertThat(killed).hasRootCauseInstanceOf(ApplyKills.Killed.class);
      }
      // the process is gone: its layer stays, with a journal naming a process that is no more
      f.store.close();
      Path layersRoot = f.store.shadowDirectory().resolveSibling("layers");
      try (Stream<Path> journals = Files.walk(layersRoot)) {
        for (Path journal : journals.filter(p -> p.getFileName().toString().equals("layer.json")).toList()) {
          Files.writeString(journal, Files.readString(journal).replaceAll("\"pid\":\\d+", "\"pid\":999999999"));
        }
      }

      try (ShadowStore reopened = f.openAgain()) {
        RestoredTab restored = reopened.restoreTab(saved);
        assertThat(restored.shellRecovered()).as("nothing the apply moved is taken for someone else's change")
            .noneMatch(note -> note.contains("while the command ran"));
        assertThat(tree(f.project)).as("as if the apply had finished").isEqualTo(finished);
        try (Stream<Path> left = Files.list(layersRoot)) {
          assertThat(left.filter(p -> p.getFileName().toString().startsWith("layer-"))).as("the layer is gone").isEmpty();
        }
        assertThat(restored.tree().undo().applied()).isTrue();
        assertThat(tree(f.project)).as("undo brings back the project as it was before the command").isEqualTo(before);
      }
    } finally {
      try (Stream<Path> all = Files.walk(temp)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          p.toFile().setWritable(true);
          p.toFile().setExecutable(true);
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The project's entries, without the mount points the sandbox leaves. */
  private static SortedMap<String, String> tree(Path root) {
    return FileTrees.snapshot(root, false, rel -> !rel.equals(".waymark") && !rel.startsWith(".waymark/"));
  }

  private static void run(ProcessBuilder builder) throws Exception {
    Process process = builder.redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }
}
