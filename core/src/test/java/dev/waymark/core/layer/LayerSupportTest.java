package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Layers are probed once per machine state: a later process trusts the note, a failed mount drops it. */
@Tag("process")
class LayerSupportTest {
  @TempDir Path temp;

  @Test
  void aProbeIsNotedForLaterProcessesAndForgottenWhenAMountFails() throws Exception {
    Path root = temp.resolve("layers");
    new Layers(root); // skips without layers here
    Path bwrap = Bwrap.required(SandboxPolicy.protecting(temp.resolve("d"), temp.resolve("c"))).bwrap().orElseThrow();
    assertThat(LayerSupport.detectOnce(root, bwrap, System.getenv("PATH")).available()).isTrue();
    Path note = root.resolve(LayerSupport.PROBED);
    assertThat(note).exists();
    // a later process: the note is trusted (a probe would leave its scratch directory's name behind in no note)
    String noted = Files.readString(note);
    assertThat(LayerSupport.detectOnce(root, bwrap, System.getenv("PATH")).available()).isTrue();
    assertThat(Files.readString(note)).isEqualTo(noted);
    // a note of another kernel, programs or user is not
    Files.writeString(note, "another machine");
    assertThat(LayerSupport.detectOnce(root, bwrap, System.getenv("PATH")).available()).isTrue();
    assertThat(Files.readString(note)).isEqualTo(noted);
    LayerSupport.forget(root);
    assertThat(note).doesNotExist();
  }

  @Test
  void aCommandWhoseLayerCannotBeMountedDoesNotRunAndSaysSo() throws Exception {
    Path root = temp.resolve("layers");
    Layers layers = new Layers(root);
    Path project = Files.createDirectories(temp.resolve("project")).toRealPath();
    Layer layer = layers.journal.begin(project, "test", "m");
    Files.delete(layer.work()); // overlayfs refuses a missing work directory
    var wrapped = ShellSandbox.detect(SandboxPolicy.protecting(temp.resolve("d"),
        temp.resolve("c")), System.getenv("PATH")).wrap(List.of("/bin/sh", "-c", "echo ran > ran.txt"),
        project, false);
    Process p = new ProcessBuilder(layers.support().enter(layer, wrapped.argv())).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(LayerSupport.notMounted(p.waitFor(), output)).as(output).isTrue();
    assertThat(project.resolve("ran.txt")).doesNotExist();
  }
}
