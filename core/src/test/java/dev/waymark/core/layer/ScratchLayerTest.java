package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A throw-away layer's upper, made without mounting anything; and what a sweep leaves. */
class ScratchLayerTest {
  @TempDir Path temp;

  @Test
  void theUpperHoldsTheWritesTheWhiteoutsAndTheProjectsDirectoryModes() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.createDirectories(project.resolve("locked"));
    Files.writeString(project.resolve("locked/old.txt"), "old\n");
    Files.writeString(project.resolve("top.txt"), "top\n");
    Files.setPosixFilePermissions(project.resolve("locked"), PosixFilePermissions.fromString("r-xr-xr-x"));
    try (ScratchLayer layer = ScratchLayer.create(temp.resolve("root"), project)) {
      layer.write("locked/new.sh", "#!/bin/sh\n".getBytes(), 0755);
      layer.link("link", "top.txt");
      layer.delete("locked/old.txt");
      layer.delete("never-there.txt"); // nothing to hide
      layer.seal();

      Path upper = layer.upper();
      assertThat(Files.readString(upper.resolve("locked/new.sh"))).isEqualTo("#!/bin/sh\n");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(upper.resolve("locked/new.sh"))))
          .isEqualTo("rwxr-xr-x");
      assertThat(Files.readSymbolicLink(upper.resolve("link"))).isEqualTo(Path.of("top.txt"));
      assertThat(UpperReader.whiteout(upper.resolve("locked/old.txt"), Files.readAttributes(upper.resolve("locked/old.txt"),
          BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS))).isTrue();
      assertThat(upper.resolve("never-there.txt")).doesNotExist();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(upper.resolve("locked"))))
          .as("the merged directory keeps the project's mode").isEqualTo("r-xr-xr-x");
      assertThat(layer.written()).isEqualTo(2);
      assertThat(layer.deleted()).isEqualTo(1);
    } finally {
      Files.setPosixFilePermissions(project.resolve("locked"), PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    try (var left = Files.list(temp.resolve("root"))) {
      assertThat(left.map(p -> p.getFileName().toString()).toList()).as("only the whiteout layers link to")
          .containsExactly("whiteout");
    }
  }

  @Test
  void aSweepDeletesTheLayersOfProcessesThatEndedAndLeavesThoseOfRunningOnes() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path left = Files.createDirectories(root.resolve("scratch-" + ended.pid() + "-123/upper"));
    ScratchLayer mine = ScratchLayer.create(root, temp);

    ScratchLayer.sweep(root);

    assertThat(left.getParent()).doesNotExist();
    assertThat(mine.directory()).exists();
    mine.close();
  }
}
