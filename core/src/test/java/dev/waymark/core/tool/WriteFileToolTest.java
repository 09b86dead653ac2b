package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteFileToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void overwritingReplacesTheFileWholeAndKeepsItsMode() throws IOException {
    f.write("run.sh", "echo old\n");
    Files.setPosixFilePermissions(f.file("run.sh"), PosixFilePermissions.fromString("rwxr-x---"));
    f.call("write_file", "path", "run.sh", "content", "echo new\n");
    assertThat(f.read("run.sh")).isEqualTo("echo new\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("run.sh"))))
        .isEqualTo("rwxr-x---");
    try (var left = Files.list(f.project)) {
      assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void aFifoOrASocketOrALinkToOneIsRefusedAtOnce() throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", f.file("pipe").toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    Files.createSymbolicLink(f.file("to-pipe"), Path.of("pipe"));
    try (var socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      socket.bind(UnixDomainSocketAddress.of(f.file("sock")));
      // A guard against the hang this test is about, not a timing assertion.
      Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
        for (String path : List.of("pipe", "to-pipe", "sock")) {
          ToolResult r = f.call("write_file", "path", path, "content", "x\n");
          assertThat(r.isError()).as(path).isTrue();
          assertThat(r.content()).as(path).contains("FIFO, socket or device");
        }
      });
    }
    assertThat(f.turn.changes()).isEmpty();
  }

  @Test
  void theTemporaryFileNeverHoldsAPrivateFilesContentWithWiderPermissions() throws IOException {
    f.write("secret.env", "old\n");
    Files.setPosixFilePermissions(f.file("secret.env"), PosixFilePermissions.fromString("rw-------"));
    List<String> seen = new ArrayList<>();
    AtomicWrite.tempWritten = temp -> {
      try {
        seen.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(temp)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    try {
      f.call("write_file", "path", "secret.env", "content", "new\n");
    } finally {
      AtomicWrite.tempWritten = temp -> {};
    }
    assertThat(seen).containsExactly("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("secret.env")))).isEqualTo("rw-------");
  }

  @Test
  void theModeItWritesIsRecordedSoAPrivateFileComesBackPrivate() throws IOException {
    f.write("secret.env", "old\n");
    Files.setPosixFilePermissions(f.file("secret.env"), PosixFilePermissions.fromString("rw-------"));
    f.call("write_file", "path", "secret.env", "content", "new\n");
    f.call("write_file", "path", "new.txt", "content", "created\n");
    f.call("edit_file", "path", "secret.env", "old_string", "new", "new_string", "edited");
    var changes = f.turn.changes();
    f.turn.finish(CheckpointStatus.DONE);
    int created = FileModes.read(f.file("new.txt"));
    assertThat(changes).extracting(c -> c.path() + " " + FileModes.octal(c.after().mode()))
        .containsExactlyInAnyOrder("secret.env 0600", "new.txt " + FileModes.octal(created));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("secret.env")))).isEqualTo("rw-------");

    // gone, then brought back by undo and redo with the mode it was written with
    f.turn = f.tab.begin();
    Files.delete(f.file("secret.env"));
    f.turn.recordFromDisk("secret.env", FileState.withMode("edited\n".getBytes(), 0600));
    f.turn.finish(CheckpointStatus.DONE);
    f.tab.undo();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("secret.env")))).isEqualTo("rw-------");
    f.tab.undo();
    f.tab.redo();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("secret.env")))).isEqualTo("rw-------");
    assertThat(FileModes.read(f.file("new.txt"))).isEqualTo(created);
  }

  @Test
  void aReadOnlyFilesTemporaryFileIsNeverWritable() throws IOException {
    f.write("frozen.txt", "old\n");
    Files.setPosixFilePermissions(f.file("frozen.txt"), PosixFilePermissions.fromString("r--------"));
    List<String> seen = new ArrayList<>();
    AtomicWrite.tempWritten = temp -> {
      try {
        seen.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(temp)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    try {
      f.call("write_file", "path", "frozen.txt", "content", "new\n");
    } finally {
      AtomicWrite.tempWritten = temp -> {};
    }
    assertThat(seen).containsExactly("r--------");
    assertThat(f.read("frozen.txt")).isEqualTo("new\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.file("frozen.txt")))).isEqualTo("r--------");
  }

  @Test
  void aFileWhoseNameIsNearTheLimitIsWrittenAndLeavesNoTemporaryFile() throws IOException {
    String name = "\u00e9".repeat(100) + "n".repeat(50) + ".txt"; // 254 bytes in UTF-8: as long as a name may be
    ToolResult r = f.call("write_file", "path", name, "content", "one\n");
    assertThat(r.isError()).as(r.content()).isFalse();
    f.call("write_file", "path", name, "content", "two\n");
    assertThat(f.read(name)).isEqualTo("two\n");
    try (var left = Files.list(f.project)) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly(name);
    }
  }

  @Test
  void createsTheFileAndItsParentsAndRecordsIt() throws IOException {
    ToolResult r = f.call("write_file", "path", "src/main/App.java", "content", "class App {}\n");
    assertThat(r).isEqualTo(ToolResult.ok("Created src/main/App.java (13 bytes)."));
    assertThat(f.read("src/main/App.java")).isEqualTo("class App {}\n");
    assertThat(f.turn.changes()).singleElement().satisfies(c -> {
      assertThat(c.path()).isEqualTo("src/main/App.java");
      assertThat(c.before().exists()).isFalse();
      assertThat(c.after().kind()).isEqualTo(FileKind.REGULAR);
    });
    f.finish();
    f.tab.undo();
    assertThat(f.exists("src/main/App.java")).isFalse();
    assertThat(f.exists("src")).isFalse();
    f.tab.redo();
    assertThat(f.read("src/main/App.java")).isEqualTo("class App {}\n");
  }

  @Test
  void overwritesKeepingTheModeAndUndoRestoresTheBytes() throws IOException {
    byte[] original = {'#', '!', '/', 'b', 'i', 'n', '/', 's', 'h', '\n', (byte) 0xC3, (byte) 0xA9, '\r', '\n'};
    Files.write(f.file("run.sh"), original);
    Files.setPosixFilePermissions(f.file("run.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
    ToolResult r = f.call("write_file", "path", "run.sh", "content", "echo new\n");
    assertThat(r.content()).isEqualTo("Overwrote run.sh (9 bytes).");
    assertThat(Files.isExecutable(f.file("run.sh"))).isTrue();
    f.finish();
    f.tab.undo();
    assertThat(Files.readAllBytes(f.file("run.sh"))).isEqualTo(original);
    assertThat(Files.isExecutable(f.file("run.sh"))).isTrue();
  }

  @Test
  void writingThroughALinkInsideTheProjectWritesAndRecordsTheTarget() throws IOException {
    f.write("real.txt", "old\n");
    Files.createSymbolicLink(f.file("alias.txt"), Path.of("real.txt"));
    assertThat(f.call("write_file", "path", "alias.txt", "content", "new\n").content()).isEqualTo("Overwrote real.txt (4 bytes).");
    assertThat(f.recorded()).containsExactly("real.txt");
    assertThat(Files.isSymbolicLink(f.file("alias.txt"))).isTrue();
  }

  @Test
  void errors() throws IOException {
    Files.createDirectories(f.file("dir"));
    f.write("file", "x");
    assertThat(f.call("write_file", "path", "dir", "content", "x").content()).contains("is a directory");
    assertThat(f.call("write_file", "path", "a.txt").content()).isEqualTo("Missing required parameter \"content\".");
    assertThat(f.call("write_file", "path", "a.txt", "content", 5).content()).contains("\"content\" must be a string");
    assertThat(f.call("write_file", "path", "file/child.txt", "content", "x").isError()).isTrue();
    assertThat(f.call("write_file", "path", "", "content", "x").content()).contains("is the project directory");
    assertThat(f.call("write_file", "path", ".git/config", "content", "x").content()).contains("inside a .git directory");
    assertThat(f.call("write_file", "path", "sub/.GIT/hooks/x", "content", "x").content()).contains("inside a .git directory");
    assertThat(f.recorded()).isEmpty();
  }

  @Test
  void aLinkToAMissingTargetIsRefused() throws IOException {
    Files.createSymbolicLink(f.file("dangling"), Path.of("nowhere/file"));
    ToolResult r = f.call("write_file", "path", "dangling", "content", "x");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("symbolic link to a missing target");
    assertThat(f.exists("nowhere")).isFalse();
  }

  @Test
  void withoutATurnTheFileIsWrittenUnrecorded() throws IOException {
    ToolResult r = f.tools.find("write_file").orElseThrow()
        .run(ToolFixture.args("path", "a.txt", "content", "x"), new ToolContext(f.project, null, f.cancellation));
    assertThat(r.isError()).isFalse();
    assertThat(f.read("a.txt")).isEqualTo("x");
  }
}
