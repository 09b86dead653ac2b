package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrepToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withGrepMaxMatches(3).withMaxFileSize(1_000));
    f.write("src/App.java", "class App {\n  void run() {}\n}\n");
    f.write("src/Tool.java", "class Tool {\r\n  void run() {}\r\n}\r\n");
    f.write("README.md", "run it\n");
    f.write("node_modules/x/index.js", "function run() {}\n");
    f.write(".gitignore", "*.log\n");
    f.write("debug.log", "run\n");
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void findsMatchingLinesAsPathLineText() {
    ToolResult r = f.call("grep", "pattern", "class \\w+", "path", "src");
    assertThat(r).isEqualTo(ToolResult.ok("src/App.java:1:class App {\nsrc/Tool.java:1:class Tool {\n"));
  }

  @Test
  void filtersByGlobAndSearchesASingleFile() {
    assertThat(f.call("grep", "pattern", "run", "glob", "*.md").content()).isEqualTo("README.md:1:run it\n");
    assertThat(f.call("grep", "pattern", "run", "path", "src/App.java").content()).isEqualTo("src/App.java:2:  void run() {}\n");
  }

  @Test
  void skipsIgnoredExcludedBinaryAndLargeFilesAndCapsResults() throws IOException {
    Files.write(f.file("blob.bin"), new byte[] {'r', 'u', 'n', 0});
    f.write("big.txt", "run\n".repeat(500));
    f.write("zz.txt", "run\nrun\n");
    ToolResult r = f.call("grep", "pattern", "run");
    assertThat(r.content()).doesNotContain("node_modules").doesNotContain("debug.log").doesNotContain("blob.bin")
        .doesNotContain("big.txt").doesNotContain("zz.txt:2")
        .contains("[truncated after 3 matches; narrow the pattern, path or glob]")
        .contains("[skipped 2 binary or over-1000-byte files]");
  }

  @Test
  void errors() {
    assertThat(f.call("grep", "pattern", "(").content()).startsWith("Not a valid Java regular expression");
    assertThat(f.call("grep", "path", "src").content()).isEqualTo("Missing required parameter \"pattern\".");
    assertThat(f.call("grep", "pattern", "x", "path", "nope").content()).isEqualTo("Not found: nope");
    assertThat(f.call("grep", "pattern", "zzz").content()).isEqualTo("No matches for zzz in ..\n");
  }
}
