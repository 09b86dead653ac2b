package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadFileToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withReadLimits(5, 200));
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void returnsNumberedLines() throws IOException {
    f.write("src/App.java", "class App {\n}\n");
    ToolResult r = f.call("read_file", "path", "src/App.java");
    assertThat(r.isError()).isFalse();
    assertThat(r.content()).isEqualTo("     1\tclass App {\n     2\t}\n");
  }

  @Test
  void pagesWithOffsetAndLimitAndSaysWhereToContinue() throws IOException {
    f.write("a.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n");
    ToolResult r = f.call("read_file", "path", "a.txt", "offset", 3, "limit", 2);
    assertThat(r.content()).isEqualTo("     3\tl3\n     4\tl4\n[more lines follow; continue with offset=5]\n");
    assertThat(f.call("read_file", "path", "a.txt", "offset", 7).content()).isEqualTo("     7\tl7\n     8\tl8\n");
  }

  @Test
  void capsLinesAtTheSetting() throws IOException {
    f.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n");
    ToolResult r = f.call("read_file", "path", "a.txt", "limit", 100);
    assertThat(r.content()).contains("     5\t5\n").doesNotContain("\t6\n").contains("continue with offset=6");
  }

  @Test
  void capsCharactersAndSaysWhereToContinue() throws IOException {
    f.write("wide.txt", ("x".repeat(90) + "\n").repeat(4));
    ToolResult r = f.call("read_file", "path", "wide.txt");
    assertThat(r.isError()).isFalse();
    assertThat(r.content()).contains("     2\t").doesNotContain("     3\t")
        .contains("[output capped at 200 characters; continue with offset=3]");
  }

  @Test
  void aLimitedStreamEndsAfterItsLimitWhateverTheReadSize() throws IOException {
    byte[] ten = "0123456789".getBytes(StandardCharsets.US_ASCII);
    try (var in = ReadFileTool.limit(new ByteArrayInputStream(ten), 4)) {
      assertThat(in.read()).isEqualTo('0');
      byte[] buffer = new byte[8];
      assertThat(in.read(buffer, 0, 8)).isEqualTo(3);
      assertThat(new String(buffer, 0, 3, StandardCharsets.US_ASCII)).isEqualTo("123");
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.read(buffer, 0, 8)).isEqualTo(-1);
    }
    assertThat(ReadFileTool.limit(new ByteArrayInputStream(ten), 20).readAllBytes()).isEqualTo(ten);
  }

  @Test
  void offsetPastTheEndIsAnError() throws IOException {
    f.write("a.txt", "one\ntwo\n");
    ToolResult r = f.call("read_file", "path", "a.txt", "offset", 5);
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("only 2 lines");
  }

  @Test
  void binaryFilesAreReportedNotDumped() throws IOException {
    Files.write(f.file("img.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1, 2});
    ToolResult r = f.call("read_file", "path", "img.png");
    assertThat(r.isError()).isFalse();
    assertThat(r.content()).isEqualTo("img.png is a binary file (8 bytes); its content is not shown.");
  }

  @Test
  void emptyFileSaysSo() throws IOException {
    f.write("empty.txt", "");
    assertThat(f.call("read_file", "path", "empty.txt").content()).isEqualTo("empty.txt is empty.");
  }

  @Test
  void envFilesAreReadable() throws IOException {
    f.write(".env.local", "KEY=1\n");
    assertThat(f.call("read_file", "path", ".env.local").content()).isEqualTo("     1\tKEY=1\n");
  }

  @Test
  void absolutePathInsideTheProjectAndDotSegmentsAreAccepted() throws IOException {
    f.write("src/a.txt", "hi\n");
    assertThat(f.call("read_file", "path", f.file("src/a.txt").toString()).content()).isEqualTo("     1\thi\n");
    assertThat(f.call("read_file", "path", "./src/./a.txt").content()).isEqualTo("     1\thi\n");
  }

  @Test
  void aLinkInsideTheProjectIsFollowed() throws IOException {
    f.write("real.txt", "real\n");
    Files.createSymbolicLink(f.file("alias.txt"), Path.of("real.txt"));
    assertThat(f.call("read_file", "path", "alias.txt").content()).isEqualTo("     1\treal\n");
  }

  @Test
  void errors() throws IOException {
    Files.createDirectories(f.file("dir"));
    assertThat(f.call("read_file", "path", "missing.txt").content()).isEqualTo("File not found: missing.txt");
    assertThat(f.call("read_file", "path", "dir").content()).contains("is a directory; use list_files");
    assertThat(f.call("read_file", "path", "dir").isError()).isTrue();
    assertThat(f.call("read_file", "path", "a", "offset", 0).content()).contains("\"offset\" must be between 1");
    assertThat(f.call("read_file", "path", "a", "limit", "many").content()).contains("\"limit\" must be an integer");
  }
}
