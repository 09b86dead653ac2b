package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.layer.LayerChange.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A command's writes land in its upper directory only, and read back as exactly what it did. */
class UpperReaderTest {
  @TempDir Path temp;
  Path project;
  Layers layers;

  @BeforeEach
  void project() throws IOException {
    project = Files.createDirectories(temp.resolve("project")).toRealPath();
    layers = new Layers(temp.resolve("layers"));
    Files.writeString(project.resolve("a.txt"), "a\n");
    Files.writeString(project.resolve("b.txt"), "b\n");
    Files.createDirectories(project.resolve("d/e"));
    Files.writeString(project.resolve("d/e/f.txt"), "f\n");
    Files.writeString(project.resolve("d/keep.txt"), "k\n");
  }

  private List<String> described(String script) throws Exception {
    var before = Layers.tree(project);
    Layer layer = layers.run(project, script);
    assertThat(Layers.tree(project)).as("the project is untouched until applied").isEqualTo(before);
    return Layers.read(layer).changes().stream()
        .map(c -> c.kind() + " " + c.path() + (c.kind() == Kind.FILE ? " " + Integer.toOctalString(c.mode()) : ""))
        .toList();
  }

  @Test
  void newModifiedAndDeletedFiles() throws Exception {
    assertThat(described("echo n > new.txt; echo more >> a.txt; rm b.txt"))
        .containsExactly("FILE a.txt 644", "DELETED b.txt", "FILE new.txt 644");
  }

  @Test
  void newDirectoryAndDeletedDirectory() throws Exception {
    assertThat(described("mkdir -p n/m && echo x > n/m/x.txt; rm -rf d"))
        .containsExactly("DELETED d/e/f.txt", "DELETED d/e", "DELETED d/keep.txt", "DELETED d",
            "DIRECTORY n", "DIRECTORY n/m", "FILE n/m/x.txt 644");
  }

  @Test
  void renamedDirectoryIsACopyAndADeletion() throws Exception {
    assertThat(described("mv d moved"))
        .containsExactly("DELETED d/e/f.txt", "DELETED d/e", "DELETED d/keep.txt", "DELETED d",
            "DIRECTORY moved", "DIRECTORY moved/e", "FILE moved/e/f.txt 644", "FILE moved/keep.txt 644");
  }

  @Test
  void fileReplacedByALinkAndChmod() throws Exception {
    assertThat(described("rm a.txt && ln -s b.txt a.txt; chmod 700 d/keep.txt"))
        .containsExactly("SYMLINK a.txt", "FILE d/keep.txt 700");
  }

  @Test
  void directoryEmptiedAndRefilledIsOpaque() throws Exception {
    // rm -rf of a directory then making it again: the new one hides the old one's entries, below too
    assertThat(described("rm -rf d && mkdir -p d/e && echo new > d/e/g.txt"))
        .containsExactly("DELETED d/keep.txt", "DELETED d/e/f.txt", "FILE d/e/g.txt 644");
  }

  @Test
  void directoryReplacedByAFileAndFileByADirectory() throws Exception {
    assertThat(described("rm -rf d && echo now-a-file > d; rm a.txt && mkdir a.txt"))
        .containsExactly("DELETED a.txt", "DIRECTORY a.txt", "DELETED d/e/f.txt", "DELETED d/e", "DELETED d/keep.txt",
            "DELETED d", "FILE d 644");
  }

  @Test
  void aMountPointTheSandboxMadeIsNoChange() throws Exception {
    Layer layer = layers.run(project, "true");
    assertThat(layer.upper().resolve(".waymark")).as("bwrap's mount point for the read-only .waymark").isDirectory();
    assertThat(UpperReader.read(layer.upper(), project, Set.of(".waymark")).changes()).isEmpty();
    assertThat(UpperReader.read(layer.upper(), project, Set.of()).changes()).hasSize(1);
  }
}
