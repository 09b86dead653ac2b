package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec} runs the subagents a turn starts, {@code --json} tags each event with its tab, and {@code checkpoints --tab} reaches a subagent's tab. */
@Timeout(60)
class ExecSubagentsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Path project;
  final Map<String, String> env = new HashMap<>();

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
  }

  private Run waymark(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true),
        env, new Stdin(new ByteArrayInputStream(new byte[0]), true));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void twoSubagentsOfOneTurnWorkInTabsOfTheirOwnWhoseEventsAreTaggedAndWhoseCheckpointsAreReachable() throws Exception {
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':["
        + "{'name':'task','arguments':{'description':'write a','prompt':'Write a.txt'}},"
        + "{'name':'task','arguments':{'description':'write b','prompt':'Write b.txt'}}]},"
        + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
        + "{'whenLastUser':'Write b.txt','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'B\\n'}}]},"
        + "{'whenLastUser':'Write a.txt','text':'a.txt is written.'},"
        + "{'whenLastUser':'Write b.txt','text':'b.txt is written.'},"
        + "{'whenLastUser':'PARENT','text':'Both done.'}]}").replace('\'', '"'));

    Run run = waymark("exec", "-C", project.toString(), "--approval", "auto-edit", "--json", "--script", script.toString(),
        "PARENT: write two files");

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : run.out().split("\n")) {
      lines.add(JSON.readTree(line));
    }
    assertThat(lines).allSatisfy(line -> assertThat(line.path("tab").asText()).isNotEmpty());
    String parent = lines.get(lines.size() - 1).get("tab").asText();
    Set<String> children = new LinkedHashSet<>();
    lines.stream().filter(l -> !l.get("tab").asText().equals(parent)).forEach(l -> children.add(l.get("tab").asText()));
    assertThat(children).hasSize(2);
    for (String child : children) {
      assertThat(lines).filteredOn(l -> l.get("tab").asText().equals(child)).extracting(l -> l.get("type").asText())
          .contains("turn_started", "tool_call_finished", "checkpoint_created", "turn_finished");
    }
    assertThat(lines).filteredOn(l -> l.get("tab").asText().equals(parent) && l.get("type").asText().equals("tool_call_finished"))
        .extracting(l -> l.get("result").asText()).anySatisfy(r -> assertThat(r).startsWith("a.txt is written."))
        .anySatisfy(r -> assertThat(r).startsWith("b.txt is written."));
    assertThat(project.resolve("a.txt")).hasContent("A");
    assertThat(project.resolve("b.txt")).hasContent("B");

    String session = lines.get(lines.size() - 1).get("session").asText();
    for (String child : children) {
      Run listed = waymark("checkpoints", "-C", project.toString(), "--session", session, "--tab", child, "list", "--json");
      assertThat(listed.exit()).as(listed.err()).isZero();
      JsonNode tree = JSON.readTree(listed.out());
      assertThat(tree.toString()).contains("Write ");
    }

    // undoing the parent's turn headless takes back what its subagents wrote; redo brings it back
    Run undone = waymark("checkpoints", "-C", project.toString(), "--session", session, "--tab", parent, "undo");
    assertThat(undone.exit()).as(undone.err()).isZero();
    assertThat(project.resolve("a.txt")).doesNotExist();
    assertThat(project.resolve("b.txt")).doesNotExist();
    Run redone = waymark("checkpoints", "-C", project.toString(), "--session", session, "--tab", parent, "redo");
    assertThat(redone.exit()).as(redone.err()).isZero();
    assertThat(project.resolve("a.txt")).hasContent("A");
    assertThat(project.resolve("b.txt")).hasContent("B");
  }

  @Test
  void headlessTheParentsCheckpointCountsItsChildrensFilesAndUndoThenRedoBringsBackTheUsersOwnTurnInAChild() throws Exception {
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':["
        + "{'name':'task','arguments':{'description':'write a','prompt':'Write a.txt'}},"
        + "{'name':'task','arguments':{'description':'write b','prompt':'Write b.txt'}}]},"
        + "{'whenLastUser':'Write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'A\\n'}}]},"
        + "{'whenLastUser':'Write b.txt','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'B\\n'}}]},"
        + "{'whenLastUser':'Write a.txt','text':'a.txt is written.'},"
        + "{'whenLastUser':'Write b.txt','text':'b.txt is written.'},"
        + "{'whenLastUser':'PARENT','text':'Both done.'}]}").replace('\'', '"'));
    Path own = Files.writeString(temp.resolve("own.json"), ("{'responses':["
        + "{'whenLastUser':'USER two','toolCalls':[{'name':'write_file','arguments':{'path':'two.txt','content':'2\\n'}}]},"
        + "{'whenLastUser':'USER two','text':'two.txt is written.'}]}").replace('\'', '"'));

    Run run = waymark("exec", "-C", project.toString(), "--approval", "auto-edit", "--script", script.toString(),
        "PARENT: write two files");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err()).contains("checkpoint #1: 2 files changed by its subagents");
    String session = run.err().replaceAll("(?s).*waymark: session (\\S+), tab (\\S+).*", "$1");
    String parent = run.err().replaceAll("(?s).*waymark: session (\\S+), tab (\\S+).*", "$2");
    Run listed = waymark("checkpoints", "-C", project.toString(), "--session", session, "--tab", parent, "list", "--json");
    assertThat(listed.out()).contains("\"prompt\" : \"PARENT: write two files\",\n    \"filesChanged\" : 2");
    String alpha = null;
    for (String tab : run.err().split("[^A-Za-z0-9]+")) { // the subagents' lines are headed by their tabs
      if (tab.matches("t[0-9a-f]{12}") && !tab.equals(parent) && waymark("checkpoints", "-C", project.toString(), "--session",
          session, "--tab", tab, "list", "--json").out().contains("Write a.txt")) {
        alpha = tab;
      }
    }
    assertThat(alpha).as("the tab that wrote a.txt").isNotNull();
    Run typed = waymark("exec", "-C", project.toString(), "--approval", "auto-edit", "--script", own.toString(),
        "--session", session, "--tab", alpha, "USER two: write two.txt");
    assertThat(typed.exit()).as(typed.err()).isZero();

    Run undone = waymark("checkpoints", "-C", project.toString(), "--session", session, "--tab", parent, "undo");
    assertThat(undone.exit()).as(undone.err()).isZero();
    assertThat(undone.out()).contains("Restored #0: 3 files deleted (", "your turn #2 in ", "undone too).");
    assertThat(project.resolve("two.txt")).doesNotExist();
    Run redone = waymark("checkpoints", "-C", project.toString(), "--session", session, "--tab", parent, "redo");
    assertThat(redone.exit()).as(redone.err()).isZero();
    assertThat(redone.out()).contains("Restored #1: 3 files written (", "redone too).");
    assertThat(project.resolve("two.txt")).hasContent("2");
    assertThat(project.resolve("a.txt")).hasContent("A");
  }
}
