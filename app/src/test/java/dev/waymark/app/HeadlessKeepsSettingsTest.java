package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code checkpoints save/undo}: the tab is saved with the model, provider and mode it had, never "none" and "ask". */
class HeadlessKeepsSettingsTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);
  final StringWriter out = waymark.out;
  final StringWriter err = waymark.err;

  private int run(String... args) {
    return waymark.run(args);
  }

  /** The saved session's tab record. */
  private JsonNode savedTab(String session) throws Exception {
    try (Stream<Path> files = Files.walk(temp.resolve("home"))) {
      List<Path> found = files.filter(f -> f.getFileName().toString().equals(session + ".json")).toList();
      assertThat(found).hasSize(1);
      return new ObjectMapper().readTree(found.get(0).toFile()).path("tabs").get(0);
    }
  }

  @Test
  void saveAndUndoLeaveTheTabsModelAndModeAsTheyWere() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':["
        + "{'whenLastUser':'write','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'x'}}]},"
        + "{'whenLastUser':'write','text':'done'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--approval", "yolo", "--model", "my-model", "write"))
        .as(err.toString()).isZero();
    Headless.Started started = waymark.started();
    String session = started.session();
    JsonNode before = savedTab(session);
    assertThat(before.path("model").asText()).isEqualTo("my-model");
    assertThat(before.path("approval").asText()).isEqualTo("yolo");

    assertThat(run("checkpoints", "-C", p, "--session", session, "save", "first")).as(err.toString()).isZero();
    assertThat(run("checkpoints", "-C", p, "--session", session, "undo")).as(err.toString()).isZero();
    assertThat(err.toString()).doesNotContain("opens in");
    JsonNode after = savedTab(session);
    assertThat(after.path("model").asText()).isEqualTo("my-model");
    assertThat(after.path("provider").asText()).isEqualTo(before.path("provider").asText());
    assertThat(after.path("approval").asText()).isEqualTo("yolo");
  }
}
