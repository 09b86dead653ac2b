package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs meant to break things: a 2 GB sparse file, binary files, file names with a newline or
 * bytes that are not UTF-8, and one shell command that changes 20,000 files. Each ends in a clear
 * result, never an exception, and nothing is lost.
 */
@Tag("process")
class BadInputTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws Exception {
    f = new ToolFixture(temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  private void sparse(String path, long size, String head) throws Exception {
    Path file = f.file(path);
    Files.createDirectories(file.getParent());
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.write(head.getBytes(StandardCharsets.UTF_8));
      raf.setLength(size);
    }
  }

  @Test
  void aTwoGigabyteSparseFileIsReadInPiecesSkippedByGrepAndNeverChanged() throws Exception {
    long size = 2L << 30;
    sparse("huge.log", size, "first line\nsecond\n" + "x".repeat(16_000) + "\n"); // text past the binary sniff, then holes
    f.write("small.txt", "needle\n");

    ToolResult read = f.call("read_file", "path", "huge.log", "limit", 3);
    assertThat(read.isError()).isFalse();
    assertThat(read.content()).contains("first line", "second", "more lines follow");
    ToolResult grep = f.call("grep", "pattern", "needle");
    assertThat(grep.content()).contains("small.txt:1:needle").contains("skipped 1 binary or over-");
    ToolResult edit = f.call("edit_file", "path", "huge.log", "old_string", "first", "new_string", "1st");
    assertThat(edit.isError()).isTrue();
    assertThat(edit.content()).contains("over the", "left unchanged");
    ToolResult overwrite = f.call("write_file", "path", "huge.log", "content", "tiny");
    assertThat(overwrite.isError()).isTrue();
    assertThat(Files.size(f.file("huge.log"))).isEqualTo(size);
    ToolResult shell = f.shell("touch huge.log");
    assertThat(shell.content()).contains("huge.log");
    assertThat(f.recorded()).doesNotContain("huge.log");
  }

  @Test
  void aSingleLineOfTwoGigabytesIsCutNotHeldInMemory() throws Exception {
    sparse("one-line.txt", 2L << 30, "start of a very long line " + "y".repeat(16_000));
    // the rest of the line is NUL bytes past the first 8 KiB, so it does not look binary
    ToolResult read = f.call("read_file", "path", "one-line.txt");
    assertThat(read.isError()).isFalse();
    assertThat(read.content()).contains("start of a very long line", "[line cut at", "only its first");
  }

  @Test
  void binaryFilesAreDescribedNotDumped() throws Exception {
    Files.write(f.file("image.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1, 2});
    assertThat(f.call("read_file", "path", "image.png").content()).contains("binary file (8 bytes)");
    assertThat(f.call("grep", "pattern", "PNG").content()).contains("No matches", "skipped 1 binary");
  }

  @Test
  void aFileNameWithANewlineIsCheckpointedAndUndone() throws Exception {
    ToolResult r = f.shell("printf 'x' > \"$(printf 'a\\nb.txt')\"");
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(f.recorded()).containsExactly("a\nb.txt");
    f.finish();
    f.tab.undo();
    assertThat(f.file("a\nb.txt")).doesNotExist();
    f.tab.redo();
    assertThat(Files.readString(f.file("a\nb.txt"))).isEqualTo("x");
  }

  @Test
  void aFileNameThatIsNotUtf8EndsInAClearReportNotACrash() throws Exception {
    f.write("kept.txt", "before\n");
    ToolResult r = f.shell("printf 'x' > \"$(printf 'bad\\377name.txt')\"; echo after > kept.txt");
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(f.recorded()).contains("kept.txt");
    f.finish();
    f.tab.undo();
    assertThat(f.read("kept.txt")).isEqualTo("before\n");
    assertThat(f.call("list_files", "path", "").isError()).isFalse();
  }

  @Tag("load")
  @Test
  void oneShellCommandThatChangesTwentyThousandFilesIsRecordedAndUndoneWhole() throws Exception {
    f.write("keep/one.txt", "one\n");
    long start = System.nanoTime();
    ToolResult r = f.shell("mkdir -p many && cd many && for i in $(seq 1 20000); do echo $i > f$i.txt; done");
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(f.recorded()).hasSize(20_000);
    f.finish();
    f.tab.undo();
    assertThat(f.file("many")).doesNotExist();
    f.tab.redo();
    try (var files = Files.list(f.file("many"))) {
      assertThat(files.count()).isEqualTo(20_000);
    }
    assertThat(Files.readString(f.file("many/f12345.txt"))).isEqualTo("12345\n");
    System.out.printf("20,000 files: recorded, undone and redone in %d ms%n", (System.nanoTime() - start) / 1_000_000);
    Map<String, String> tree = f.tree();
    assertThat(tree).containsKey("keep/one.txt");
  }
}
