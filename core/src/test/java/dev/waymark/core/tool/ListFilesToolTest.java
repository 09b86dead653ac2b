package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.context.FileIndex;
import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListFilesToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withListMaxFiles(4));
    f.write("README.md", "r");
    f.write("src/App.java", "a");
    f.write("src/util/Strings.java", "s");
    f.write("node_modules/lib/index.js", "n");
    f.write("target/classes/App.class", "c");
    f.write(".git/config", "g");
    f.write(".gitignore", "*.log\n/out/\n");
    f.write("app.log", "l");
    f.write("out/result.txt", "o");
    f.write("src/.gitignore", "generated/\n!keep.log\n");
    f.write("src/generated/Gen.java", "g");
    f.write("src/keep.log", "k");
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void listsFilesHonouringGitignoreAndBuiltInExclusions() {
    ToolResult r = f.call("list_files", "path", "src");
    assertThat(r.content()).isEqualTo("src/.gitignore\nsrc/App.java\nsrc/keep.log\nsrc/util/Strings.java\n");
  }

  @Test
  void filesGitTracksAreListedAndSearchedEvenWhereARuleLeavesTheirDirectoryOut() throws IOException {
    try (ToolFixture tracked = new ToolFixture(temp.resolve("tracked"), ToolSettings.DEFAULTS)) {
      tracked.write(".gitignore", "dist/\n");
      tracked.write("dist/lib.js", "export const answer = 42;\n");
      tracked.write("build/release.sh", "echo answer\n");
      tracked.write("src/App.java", "class App {}\n");
      GitCli.ok(tracked.project, "init", "-q");
      GitCli.ok(tracked.project, "add", "-f", ".gitignore", "dist/lib.js", "build/release.sh",
          "src/App.java");
      // beside them, what nobody tracks stays left out
      tracked.write("dist/bundle.js", "const answer = 1;\n");
      tracked.write("build/tmp/out.o", "answer\n");
      tracked.write("node_modules/x/index.js", "answer\n");

      assertThat(tracked.call("list_files").content())
          .isEqualTo(".gitignore\nbuild/release.sh\ndist/lib.js\nsrc/App.java\n");
      assertThat(tracked.call("grep", "pattern", "answer").content())
          .contains("build/release.sh:1:", "dist/lib.js:1:").doesNotContain("bundle.js", "out.o", "node_modules");
      FileIndex index = new FileIndex(tracked.project);
      index.refreshNow();
      assertThat(index.search("lib.js", 5)).containsExactly("dist/lib.js");
      assertThat(index.search("bundle", 5)).isEmpty();
    }
  }

  @Test
  void filtersByGlob() {
    assertThat(f.call("list_files", "pattern", "*.java").content()).isEqualTo("src/App.java\nsrc/util/Strings.java\n");
    assertThat(f.call("list_files", "pattern", "src/**/*.java").content()).isEqualTo("src/util/Strings.java\n");
    assertThat(f.call("list_files", "pattern", "**/*.md").content()).isEqualTo("README.md\n");
    assertThat(f.call("list_files", "path", "src", "pattern", "util/*").content()).isEqualTo("src/util/Strings.java\n");
  }

  @Test
  void capsTheCountAndSaysSo() {
    ToolResult r = f.call("list_files");
    assertThat(r.content()).isEqualTo(".gitignore\nREADME.md\nsrc/.gitignore\nsrc/App.java\n"
        + "[truncated: showing the first 4 of 6 files; narrow the path or pattern]\n");
  }

  @Test
  void anExcludedDirectoryAskedForByNameIsListed() {
    assertThat(f.call("list_files", "path", "node_modules").content()).isEqualTo("node_modules/lib/index.js\n");
  }

  @Test
  void errorsAndEmptyResults() {
    assertThat(f.call("list_files", "path", "nope").content()).isEqualTo("Directory not found: nope");
    assertThat(f.call("list_files", "pattern", "*.rs").content()).isEqualTo("No files found in . matching *.rs.");
    assertThat(f.call("list_files", "pattern", "[").content()).contains("Not a valid glob");
    assertThat(f.call("list_files", "path", 3).content()).contains("\"path\" must be a string");
  }
}
