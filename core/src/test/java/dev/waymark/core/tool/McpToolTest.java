package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An MCP tool as the agent calls it: named, described, capped, and its server's file changes captured and undone. */
class McpToolTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withShellMaxOutputBytes(1_000));
  }

  @AfterEach
  void close() {
    f.close();
  }

  /** A server that writes the file its arguments name, as a filesystem server does, then answers. */
  private McpTool writer(boolean fails) {
    McpTool.Server server = new McpTool.Server() {
      @Override
      public String name() {
        return "fs";
      }

      @Override
      public ToolResult call(String tool, JsonNode arguments, Cancellation cancellation) {
        try {
          Path file = f.project.resolve(arguments.path("path").asText());
          Files.createDirectories(file.getParent());
          Files.writeString(file, arguments.path("content").asText());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return fails ? ToolResult.error(ErrorKind.TOOL_FAILED, "The tool reported an error:\ndisk says no") : ToolResult.ok("Wrote it");
      }
    };
    return new McpTool(server, "write_file", "Writes a file", ToolFixture.JSON.createObjectNode().put("type", "object"),
        false, ToolSettings.DEFAULTS.withShellMaxOutputBytes(1_000));
  }

  @Test
  void whatTheServerWritesInTheProjectIsRecordedListedAndUndone() throws IOException {
    f.write("a.txt", "before\n");
    Map<String, String> before = f.tree();
    McpTool tool = writer(false);
    ToolResult r = tool.run(ToolFixture.args("path", "a.txt", "content", "after\n"),
        new ToolContext(f.project, f.turn, new Cancellation()));
    tool.run(ToolFixture.args("path", "new/b.txt", "content", "new\n"), new ToolContext(f.project, f.turn, new Cancellation()));
    assertThat(r).isEqualTo(ToolResult.ok("Wrote it\nFiles changed (recorded; undo restores them):\n  modified a.txt\n"));
    assertThat(f.recorded()).containsExactly("a.txt", "new/b.txt");
    f.finish();
    f.tab.undo();
    assertThat(f.tree()).isEqualTo(before);
  }

  @Test
  void aFailedCallStillHasItsChangesRecorded() {
    ToolResult r = writer(true).run(ToolFixture.args("path", "half.txt", "content", "x"),
        new ToolContext(f.project, f.turn, new Cancellation()));
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("disk says no").contains("  created half.txt");
    assertThat(f.recorded()).containsExactly("half.txt");
  }

  @Test
  void isNamedByServerAndToolAsksLikeAShellCommandAndShowsItsArguments() {
    McpTool tool = writer(false);
    assertThat(tool.name()).isEqualTo("fs__write_file");
    assertThat(tool.ruleName()).isEqualTo("mcp__fs__write_file");
    assertThat(tool.spec().description()).isEqualTo("[MCP server fs] Writes a file");
    assertThat(tool.spec().parameters().path("type").asText()).isEqualTo("object");
    assertThat(ApprovalMode.ASK.needsApproval(tool.kind())).isTrue();
    assertThat(ApprovalMode.AUTO_EDIT.needsApproval(tool.kind())).isTrue();
    assertThat(ApprovalMode.YOLO.needsApproval(tool.kind())).isFalse();
    JsonNode arguments = ToolFixture.args("path", "a.txt", "content", "hi");
    assertThat(tool.describe(arguments)).isEqualTo("MCP server fs, tool write_file {\"path\":\"a.txt\",\"content\":\"hi\"}");
    assertThat(tool.preview(arguments, f.project)).contains("\"path\" : \"a.txt\"");
    assertThat(McpTool.nameOf("my server", "a.b/c")).isEqualTo("my_server__a_b_c");
    assertThat(McpTool.nameOf("s", "x".repeat(100))).hasSize(64);
  }

  @Test
  void aLargeResultIsCappedLikeShellOutput() {
    McpTool.Server server = new McpTool.Server() {
      @Override
      public String name() {
        return "big";
      }

      @Override
      public ToolResult call(String tool, JsonNode arguments, Cancellation cancellation) {
        return ToolResult.ok("start " + "x".repeat(100_000) + " end");
      }
    };
    ToolResult r = new McpTool(server, "dump", null, null, false, ToolSettings.DEFAULTS.withShellMaxOutputBytes(1_000))
        .run(ToolFixture.JSON.createObjectNode(), new ToolContext(f.project, f.turn, new Cancellation()));
    assertThat(r.content()).startsWith("start ").contains(" bytes of output cut ...]").contains(" end\n");
    assertThat(r.content().length()).isLessThan(1_200);
  }

  @Test
  void argumentsThatAreNoObjectAreRefusedBeforeTheServerIsCalled() {
    ToolResult r = writer(false).run(ToolFixture.JSON.createArrayNode(), new ToolContext(f.project, f.turn, new Cancellation()));
    assertThat(r).isEqualTo(ToolResult.error(ErrorKind.REFUSED, "The arguments of fs__write_file must be a JSON object."));
    assertThat(f.recorded()).isEmpty();
  }
}
