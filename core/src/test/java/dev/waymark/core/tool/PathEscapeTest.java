package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No tool reads, lists, searches or writes outside the project: not by {@code ..}, not by an
 * absolute path, not through a link to a file or a directory outside. Each is a tool error.
 */
@Tag("process")
class PathEscapeTest {
  @TempDir Path temp;
  ToolFixture f;
  Path secret;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp);
    secret = f.outside.resolve("secret.txt");
    Files.writeString(secret, "SECRET x\n");
    Files.createSymbolicLink(f.file("link.txt"), secret);
    Files.createSymbolicLink(f.file("linkdir"), f.outside);
  }

  @AfterEach
  void close() {
    f.close();
  }

  /** Each tool with a path argument, as a function from the path to its arguments. */
  static Stream<Arguments> callsWithPaths() {
    List<Arguments> all = new ArrayList<>();
    List<Object[]> tools = List.of(
        new Object[] {"read_file", (Function<String, ObjectNode>) p -> ToolFixture.args("path", p)},
        new Object[] {"write_file", (Function<String, ObjectNode>) p -> ToolFixture.args("path", p, "content", "pwned")},
        new Object[] {"edit_file", (Function<String, ObjectNode>) p -> ToolFixture.args("path", p, "old_string", "SECRET",
            "new_string", "pwned")},
        new Object[] {"list_files", (Function<String, ObjectNode>) p -> ToolFixture.args("path", p)},
        new Object[] {"grep", (Function<String, ObjectNode>) p -> ToolFixture.args("pattern", "SECRET", "path", p)});
    for (Object[] tool : tools) {
      for (String path : List.of("../outside/secret.txt", "sub/../../outside/secret.txt", "/etc/passwd", "OUTSIDE_ABSOLUTE",
          "link.txt", "linkdir/secret.txt", "linkdir")) {
        all.add(Arguments.of(tool[0], path, tool[1]));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("callsWithPaths")
  void isRefused(String tool, String path, Function<String, ObjectNode> arguments) throws IOException {
    String p = path.equals("OUTSIDE_ABSOLUTE") ? secret.toString() : path;
    ToolResult r = f.call(tool, arguments.apply(p));
    assertThat(r.isError()).as(r.content()).isTrue();
    assertThat(r.content()).startsWith("Refused:").doesNotContain("SECRET x").doesNotContain("root:");
    assertThat(Files.readString(secret)).isEqualTo("SECRET x\n");
    assertThat(f.outside.resolve("pwned")).doesNotExist();
    assertThat(f.recorded()).isEmpty();
  }

  @Test
  void walksNeverFollowLinksOut() {
    assertThat(f.call("list_files").content()).isEqualTo("link.txt\nlinkdir\n");
    assertThat(f.call("grep", "pattern", "SECRET").content()).startsWith("No matches");
  }

  @Test
  void aShellCommandsWritesOutsideAreNotRecordedAndUndoLeavesThemAlone() throws IOException {
    f.write("keep.txt", "k\n");
    ToolResult r = f.shell("echo via-link > linkdir/through.txt; echo up > ../outside/up.txt; ln -s /etc/passwd pw; "
        + "echo mine > keep.txt");
    assertThat(r.isError()).as(r.content()).isFalse();
    assertThat(f.recorded()).containsExactly("keep.txt", "pw");
    f.finish();
    f.tab.undo();
    assertThat(f.exists("pw")).isFalse();
    assertThat(Files.readString(Path.of("/etc/passwd"))).isNotEmpty();
    assertThat(f.read("keep.txt")).isEqualTo("k\n");
    assertThat(f.outside.resolve("through.txt")).hasContent("via-link");
    assertThat(f.outside.resolve("up.txt")).hasContent("up");
    assertThat(Files.isSymbolicLink(f.file("linkdir"))).isTrue();
  }

  @Test
  void aShellCommandThatSwapsADirectoryForALinkOutsideIsUndoneWithoutWritingThroughTheLink() throws IOException {
    f.write("dir/a.txt", "a\n");
    ToolResult r = f.shell("rm -r dir && ln -s ../outside dir");
    // The deleted file is recorded with its content; undo takes the link away, then brings it back.
    assertThat(r.content()).contains("created link dir").contains("deleted dir/a.txt");
    f.finish();
    f.tab.undo();
    assertThat(f.outside.resolve("a.txt")).doesNotExist();
    assertThat(Files.isSymbolicLink(f.file("dir"))).isFalse();
    assertThat(f.read("dir/a.txt")).isEqualTo("a\n");
    f.tab.redo();
    assertThat(Files.isSymbolicLink(f.file("dir"))).isTrue();
    assertThat(f.outside.resolve("a.txt")).doesNotExist();
  }

  @Test
  void aShellCommandThatSwapsALinkForADirectoryIsUndoneAndRedone() throws IOException {
    Files.createSymbolicLink(f.file("dir"), Path.of("../outside"));
    ToolResult r = f.shell("rm dir && mkdir dir && echo b > dir/b.txt");
    assertThat(r.content()).contains("deleted dir").contains("created dir/b.txt");
    f.finish();
    f.tab.undo();
    assertThat(Files.isSymbolicLink(f.file("dir"))).isTrue();
    assertThat(f.outside.resolve("b.txt")).doesNotExist();
    f.tab.redo();
    assertThat(Files.isSymbolicLink(f.file("dir"))).isFalse();
    assertThat(f.read("dir/b.txt")).isEqualTo("b\n");
  }
}
