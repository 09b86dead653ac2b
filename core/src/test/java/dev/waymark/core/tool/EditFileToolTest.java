package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EditFileToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp);
    f.write("App.java", "class App {\n  int a = 1;\n  int b = 1;\n}\n");
  }

  @AfterEach
  void close() {
    f.close();
  }

  ToolResult edit(String old, String replacement) {
    return f.call("edit_file", "path", "App.java", "old_string", old, "new_string", replacement);
  }

  @Test
  void replacesAUniqueStringAndRecordsTheChange() throws IOException {
    ToolResult r = edit("int a = 1;", "int a = 2;");
    assertThat(r).isEqualTo(ToolResult.ok("Edited App.java: replaced 1 occurrence."));
    assertThat(f.read("App.java")).isEqualTo("class App {\n  int a = 2;\n  int b = 1;\n}\n");
    assertThat(f.recorded()).containsExactly("App.java");
    f.finish();
    f.tab.undo();
    assertThat(f.read("App.java")).isEqualTo("class App {\n  int a = 1;\n  int b = 1;\n}\n");
  }

  @Test
  void aPreviewShowsTheDiffTheEditWouldMakeAndChangesNothing() throws IOException {
    String preview = f.tools.find("edit_file").orElseThrow().preview(
        ToolFixture.args("path", "App.java", "old_string", "int a = 1;", "new_string", "int a = 2;"), f.project);
    assertThat(preview).contains("--- a/App.java", "+++ b/App.java", "-  int a = 1;", "+  int a = 2;");
    assertThat(f.read("App.java")).contains("int a = 1;");
    assertThat(f.tools.find("edit_file").orElseThrow().preview(
        ToolFixture.args("path", "App.java", "old_string", "missing", "new_string", "x"), f.project)).isEmpty();
    assertThat(f.tools.find("write_file").orElseThrow().preview(
        ToolFixture.args("path", "new.txt", "content", "hello\n"), f.project))
        .contains("--- /dev/null", "+++ b/new.txt", "+hello");
    assertThat(f.tools.find("read_file").orElseThrow().preview(ToolFixture.args("path", "App.java"), f.project)).isEmpty();
  }

  @Test
  void aStringFoundMoreThanOnceNeedsReplaceAll() throws IOException {
    ToolResult r = edit(" = 1;", " = 0;");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("occurs 2 times").contains("replace_all");
    assertThat(f.read("App.java")).contains("int a = 1;");
    ToolResult all = f.call("edit_file", "path", "App.java", "old_string", " = 1;", "new_string", " = 0;", "replace_all", true);
    assertThat(all.content()).isEqualTo("Edited App.java: replaced 2 occurrences.");
    assertThat(f.read("App.java")).isEqualTo("class App {\n  int a = 0;\n  int b = 0;\n}\n");
  }

  @Test
  void replaceAllWithOneOccurrenceIsFine() throws IOException {
    assertThat(f.call("edit_file", "path", "App.java", "old_string", "class", "new_string", "final class",
        "replace_all", true).isError()).isFalse();
  }

  @Test
  void aMissingStringIsAnErrorAndChangesNothing() throws IOException {
    ToolResult r = edit("int c = 1;", "int c = 2;");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("old_string was not found in App.java");
    assertThat(f.recorded()).isEmpty();
  }

  @Test
  void crlfFilesGetAHint() throws IOException {
    f.write("win.txt", "a\r\nb\r\n");
    ToolResult r = f.call("edit_file", "path", "win.txt", "old_string", "a\nb", "new_string", "c");
    assertThat(r.content()).contains("CRLF");
  }

  @Test
  void sameOldAndNewIsAnError() {
    ToolResult r = edit("int a = 1;", "int a = 1;");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("the same");
  }

  @Test
  void emptyOldStringIsAnError() {
    assertThat(edit("", "x").content()).contains("old_string is empty");
  }

  @Test
  void missingFileAndNonTextAreErrors() throws IOException {
    assertThat(f.call("edit_file", "path", "nope.txt", "old_string", "a", "new_string", "b").content())
        .startsWith("File not found: nope.txt");
    Files.write(f.file("latin1.txt"), new byte[] {'c', 'a', 'f', (byte) 0xE9});
    assertThat(f.call("edit_file", "path", "latin1.txt", "old_string", "caf", "new_string", "x").content())
        .contains("not UTF-8 text");
    assertThat(f.call("edit_file", "path", "App.java", "old_string", "a").content())
        .isEqualTo("Missing required parameter \"new_string\".");
    assertThat(f.call("edit_file", "path", "App.java", "old_string", "a", "new_string", "b", "replace_all", "yes").content())
        .contains("\"replace_all\" must be true or false");
  }
}
