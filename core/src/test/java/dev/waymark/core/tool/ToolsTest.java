package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.waymark.core.model.ToolSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public contract: six tools, their names, parameters and kinds, and that no call throws. */
class ToolsTest {
  @TempDir Path temp;

  static final Map<String, List<String>> PARAMETERS = Map.of(
      "read_file", List.of("path", "offset", "limit"),
      "write_file", List.of("path", "content"),
      "edit_file", List.of("path", "old_string", "new_string", "replace_all"),
      "list_files", List.of("path", "pattern"),
      "grep", List.of("pattern", "path", "glob"),
      "run_shell", List.of("command", "timeout_ms", "sandbox"));

  static final Map<String, List<String>> REQUIRED = Map.of(
      "read_file", List.of("path"),
      "write_file", List.of("path", "content"),
      "edit_file", List.of("path", "old_string", "new_string"),
      "list_files", List.of(),
      "grep", List.of("pattern"),
      "run_shell", List.of("command"));

  @Test
  void offersSixToolsWithTheirJsonSchemas() {
    List<ToolSpec> specs = Tools.standard().specs();
    assertThat(specs).extracting(ToolSpec::name)
        .containsExactly("read_file", "write_file", "edit_file", "list_files", "grep", "run_shell");
    for (ToolSpec spec : specs) {
      JsonNode schema = spec.parameters();
      assertThat(schema.get("type").asText()).isEqualTo("object");
      List<String> names = new ArrayList<>();
      schema.get("properties").fieldNames().forEachRemaining(names::add);
      assertThat(names).as(spec.name()).containsExactlyElementsOf(PARAMETERS.get(spec.name()));
      List<String> required = new ArrayList<>();
      schema.get("required").forEach(n -> required.add(n.asText()));
      assertThat(required).as(spec.name()).containsExactlyElementsOf(REQUIRED.get(spec.name()));
      assertThat(spec.description()).isNotBlank();
    }
  }

  @Test
  void kindsDecideApproval() {
    Tools tools = Tools.standard();
    assertThat(tools.all()).extracting(Tool::kind).containsExactly(ToolKind.READ, ToolKind.EDIT, ToolKind.EDIT,
        ToolKind.READ, ToolKind.READ, ToolKind.SHELL);
    assertThat(ApprovalMode.AUTO_EDIT.needsApproval(tools.find("write_file").orElseThrow().kind())).isFalse();
    assertThat(ApprovalMode.AUTO_EDIT.needsApproval(tools.find("run_shell").orElseThrow().kind())).isTrue();
  }

  @Test
  void findsByName() {
    assertThat(Tools.standard().find("grep")).isPresent();
    assertThat(Tools.standard().find("delete_everything")).isEmpty();
  }

  @Test
  void describeNamesTheTargetAndNeverThrows() {
    Tools tools = Tools.standard();
    assertThat(tools.find("edit_file").orElseThrow().describe(ToolFixture.args("path", "src/A.java"))).isEqualTo("edit src/A.java");
    assertThat(tools.find("read_file").orElseThrow().describe(JsonNodeFactory.instance.textNode("x")))
        .isEqualTo("read_file (invalid arguments)");
    assertThat(tools.find("grep").orElseThrow().describe(null)).isEqualTo("grep (invalid arguments)");
  }

  @Test
  void badArgumentShapesAreToolErrorsForEveryTool() throws IOException {
    try (ToolFixture f = new ToolFixture(temp)) {
      for (Tool tool : f.tools.all()) {
        ToolResult notObject = tool.run(JsonNodeFactory.instance.arrayNode(), new ToolContext(f.project, f.turn, f.cancellation));
        assertThat(notObject.isError()).isTrue();
        assertThat(notObject.content()).isEqualTo("The arguments must be a JSON object, not array");
        if (!REQUIRED.get(tool.name()).isEmpty()) {
          ToolResult empty = tool.run(null, new ToolContext(f.project, f.turn, f.cancellation));
          assertThat(empty.content()).as(tool.name()).startsWith("Missing required parameter");
        }
        if (PARAMETERS.get(tool.name()).contains("path")) {
          ToolResult badPath = f.call(tool.name(), "path", List.of("a"), "pattern", "x", "content", "c",
              "old_string", "a", "new_string", "b");
          assertThat(badPath.content()).as(tool.name()).isEqualTo("Parameter \"path\" must be a string, not array.");
        }
      }
    }
  }
}
