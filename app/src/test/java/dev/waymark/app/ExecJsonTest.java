package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ExportView;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.protocol.TokenUsage;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.protocol.TurnStatus;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --json}, the prompt from standard input and {@code --output-last-message}, in process with a scripted model. */
@Timeout(60)
@Tag("process")
class ExecJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Path project;
  final Map<String, String> env = new HashMap<>();

  record Run(int exit, String out, String err) {
    List<JsonNode> lines() throws Exception {
      List<JsonNode> all = new ArrayList<>();
      for (String line : out.split("\n")) {
        all.add(JSON.readTree(line)); // every line is a whole object: none is split, none is text
      }
      return all;
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "A\n");
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
  }

  private Run exec(String stdin, boolean stdinIsTerminal, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of("exec", "-C", project.toString()));
    all.addAll(List.of(args));
    int exit = Main.run(all.toArray(String[]::new), new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true),
        new PrintWriter(err, true), env,
        new Stdin(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), stdinIsTerminal));
    return new Run(exit, out.toString(), err.toString());
  }

  private String script(String json) throws Exception {
    return Files.writeString(temp.resolve("script-" + System.nanoTime() + ".json"), json).toString();
  }

  /** The README's table of line types: type to its fields, in the README's order. */
  private static Map<String, Set<String>> documented() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    String section = readme.substring(readme.indexOf("#### `exec --json`"));
    section = section.substring(0, section.indexOf("```"));
    Map<String, Set<String>> types = new LinkedHashMap<>();
    Matcher row = Pattern.compile("(?m)^\\| `([a-z_]+)` \\| (.*) \\|$").matcher(section);
    while (row.find()) {
      Set<String> fields = new LinkedHashSet<>();
      // a field is a code span at the top level of the cell, not one inside parentheses
      String cell = row.group(2).replaceAll("\\([^)]*\\)", "");
      Matcher field = Pattern.compile("`([a-z_]+)`").matcher(cell);
      while (field.find()) {
        fields.add(field.group(1));
      }
      if (!row.group(1).equals("type")) { // the header row
        types.put(row.group(1), fields);
      }
    }
    return types;
  }

  private static Set<String> fields(JsonNode line) {
    Set<String> names = new LinkedHashSet<>();
    line.fieldNames().forEachRemaining(names::add);
    names.remove("v");
    names.remove("type");
    return names;
  }

  @Test
  void everyLineOfATurnIsOneVersionedObjectOfADocumentedTypeWithExactlyItsDocumentedFields() throws Exception {
    String script = script("""
        {"responses": [
          {"text": "Writing it.\\nNow.", "toolCalls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "B\\n"}}]},
          {"text": "Running it.", "toolCalls": [{"name": "run_shell", "arguments": {"command": "echo hi > c.txt"}}]},
          {"text": "Done: b.txt written.", "usage": {"inputTokens": 1200, "outputTokens": 34, "cacheReadTokens": 1000}}
        ]}""");

    Run run = exec("", true, "--approval", "auto-edit", "--json", "--script", script, "write", "b");

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> lines = run.lines();
    Map<String, Set<String>> documented = documented();
    Set<String> seen = new LinkedHashSet<>();
    for (JsonNode line : lines) {
      assertThat(line.get("v").asInt()).isEqualTo(EventLines.VERSION);
      String type = line.get("type").asText();
      assertThat(documented).as("type %s is documented", type).containsKey(type);
      assertThat(fields(line)).as("fields of %s", type).containsExactlyInAnyOrderElementsOf(documented.get(type));
      seen.add(type);
    }
    assertThat(seen).contains("turn_started", "text_delta", "tool_call_proposed", "tool_call_finished", "warning",
        "checkpoint_created", "turn_finished", "session");

    JsonNode started = lines.get(0);
    assertThat(started.get("type").asText()).isEqualTo("turn_started");
    assertThat(started.get("prompt").asText()).isEqualTo("write b");
    JsonNode write = lines.stream().filter(l -> l.get("type").asText().equals("tool_call_finished")
        && l.get("name").asText().equals("write_file")).findFirst().orElseThrow();
    assertThat(write.get("files").toString()).isEqualTo("[\"b.txt\"]");
    assertThat(write.get("arguments").get("path").asText()).isEqualTo("b.txt");
    JsonNode denied = lines.stream().filter(l -> l.get("type").asText().equals("warning")).findFirst().orElseThrow();
    assertThat(denied.get("message").asText()).contains("Denied run_shell");
    JsonNode created = lines.stream().filter(l -> l.get("type").asText().equals("checkpoint_created")).findFirst().orElseThrow();
    assertThat(created.get("checkpoint").asInt()).isEqualTo(1);
    assertThat(created.get("tag").asText()).startsWith("refs/tags/waymark/").endsWith("/1");
    assertThat(created.get("files").toString()).isEqualTo("[\"b.txt\"]");
    JsonNode finished = lines.get(lines.size() - 2);
    assertThat(finished.get("type").asText()).isEqualTo("turn_finished");
    assertThat(finished.get("status").asText()).isEqualTo("done");
    assertThat(finished.get("usage").get("input_tokens").asLong()).isEqualTo(1200);
    assertThat(finished.get("usage").get("output_tokens").asLong()).isEqualTo(34);
    assertThat(finished.get("usage").get("cache_read_input_tokens").asLong()).isEqualTo(1000);
    assertThat(finished.get("usage").get("cache_creation_input_tokens").asLong()).isZero();
    JsonNode session = lines.get(lines.size() - 1);
    assertThat(session.get("type").asText()).isEqualTo("session");
    assertThat(run.err()).contains("waymark: session " + session.get("session").asText());
    StringBuilder answer = new StringBuilder();
    lines.stream().filter(l -> l.get("type").asText().equals("text_delta")).forEach(l -> answer.append(l.get("text").asText()));
    assertThat(answer.toString()).isEqualTo("Writing it.\nNow.Running it.Done: b.txt written.");
    assertThat(run.err()).as("tool activity goes to the JSON, not to stderr").doesNotContain("> write_file");
  }

  @Test
  void aFailedTurnEndsWithAnErrorLineAndAFailedTurnFinished() throws Exception {
    String script = script("{\"responses\": [{\"error\": {\"kind\": \"AUTHENTICATION\", \"message\": \"the key was refused\"}}]}");

    Run run = exec("", true, "--json", "--script", script, "hello");

    assertThat(run.exit()).as(run.err()).isEqualTo(1);
    List<JsonNode> lines = run.lines();
    JsonNode error = lines.stream().filter(l -> l.get("type").asText().equals("error")).findFirst().orElseThrow();
    assertThat(error.get("message").asText()).contains("the key was refused");
    assertThat(error.get("code").asText()).as("what sort of failure, for scripts").isEqualTo("model_failed");
    assertThat(fields(error)).containsExactlyElementsOf(documented().get("error"));
    assertThat(lines.stream().filter(l -> l.get("type").asText().equals("turn_finished")).findFirst().orElseThrow()
        .get("status").asText()).isEqualTo("failed");
    assertThat(run.err()).contains("the key was refused");
  }

  @Test
  void aFailedToolCallSaysWhatSortOfFailureItIs() throws Exception {
    String script = script("""
        {"responses": [
          {"toolCalls": [{"name": "read_file", "arguments": {"path": "../outside.txt"}},
                         {"name": "read_file", "arguments": {"path": "missing.txt"}},
                         {"name": "read_file", "arguments": {"path": "a.txt"}}]},
          {"text": "Read."}
        ]}""");

    Run run = exec("", true, "--json", "--script", script, "read");

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> finished = run.lines().stream().filter(l -> l.get("type").asText().equals("tool_call_finished")).toList();
    assertThat(finished).extracting(l -> l.get("arguments").get("path").asText())
        .containsExactly("../outside.txt", "missing.txt", "a.txt");
    assertThat(finished).extracting(l -> l.get("is_error").asBoolean()).containsExactly(true, true, false);
    assertThat(finished).extracting(l -> l.get("code").isNull() ? null : l.get("code").asText())
        .containsExactly("refused", "not_found", null);
  }

  @Test
  void everyProtocolEventHasADocumentedLineWithExactlyItsDocumentedFields() throws Exception {
    CheckpointView view = new CheckpointView(2, OptionalInt.of(1), TurnStatus.DONE, Instant.EPOCH, List.of("a.txt"),
        Optional.of("abc"), Optional.of("refs/tags/waymark/t/2"), Set.of("good"));
    ToolCallView call = new ToolCallView("c1", "read_file", "{\"path\":\"a.txt\"}");
    List<Event> samples = List.of(
        new Event.TurnStarted(1, 0, "p"), new Event.ReasoningDelta(1, "r"), new Event.AssistantDelta(1, "t"),
        new Event.ToolCallProposed(1, call, "a.txt", "", false), new Event.ToolCallFinished(1, call, "A", false, List.of()),
        new Event.ToolOutput(1, "c1", "compiling\n"),
        new Event.SteeringQueued(1, "s"), new Event.SteeringFolded(1, "s"), new Event.CheckpointCreated(view),
        new Event.CheckpointRestored(new RestoreOutcome(true, 2, 1, List.of("a.txt"), List.of(), List.of(), Optional.empty(),
            List.of(0, 1), "ok"), Optional.of(call), "draft"),
        new Event.BranchRefused(1, "p", new RestoreOutcome(false, 2, 1, List.of(), List.of(), List.of("a.txt"),
            Optional.empty(), List.of(0, 1, 2), "refused")),
        new Event.ViewMoved(1, true), new Event.CheckpointSaved(view, "good", "refs/tags/waymark/t/saved/good",
            OptionalInt.of(1)), new Event.SaveDeleted(2, "good", "refs/tags/waymark/t/saved/good"),
        new Event.SettingsChanged("m", "ask"), new Event.UsageReported(1, "m", new TokenUsage(1, 2)),
        new Event.CheckpointsListed(List.of(new CheckpointSummary(0, OptionalInt.empty(), TurnStatus.DONE, Instant.EPOCH, "",
            0, 0, 0, true, Optional.empty(), Set.of())), 0),
        new Event.DiffReady(new DiffView(1, List.of(new DiffView.FileDiff("a.txt", "@@", 1, 0, false)))),
        new Event.ComparisonReady(new ComparisonView(CheckpointRef.of(1),
            CheckpointRef.of(2), List.of(new ComparisonView.FileComparison(
                "a.txt", ComparisonView.Change.MODIFIED, 1, 0, false, "--- a/a.txt\n", List.of("@@"))))),
        new Event.Exported(new ExportView("b", Optional.of("abc"), List.of(
            new ExportView.Commit("def", List.of(1), "s", 1)), Optional.empty(), List.of(), List.of(".env"))),
        new Event.Waiting(1, "w"), new Event.Warning("w"), new Event.PromptBlocked(1, "b"),
        new Event.Error(ErrorKind.NOT_FOUND, "e", OptionalLong.empty()),
        new Event.ContextUsed(1, 900, 1000, false), new Event.ContextUsed(1, 900, 0, true), new Event.Compacting(2, "why"),
        new Event.TurnFinished(1, TurnStatus.DONE, Optional.of(new TokenUsage(1, 2))),
        new Event.TabRestored("t", List.of(), 0, List.of(0), Optional.empty()));
    Set<Class<?>> sampled = new LinkedHashSet<>();
    samples.forEach(e -> sampled.add(e.getClass()));
    assertThat(sampled).as("a sample of every event type").containsExactlyInAnyOrder(Event.class.getPermittedSubclasses());

    Map<String, Set<String>> documented = documented();
    for (Event event : samples) {
      JsonNode line = JSON.readTree(EventLines.line(event, "t"));
      String type = line.get("type").asText();
      assertThat(documented).as("%s is documented", type).containsKey(type);
      assertThat(fields(line)).as("fields of %s", type).containsExactlyInAnyOrderElementsOf(documented.get(type));
    }
    Set<String> written = new LinkedHashSet<>();
    Arrays.stream(Event.class.getPermittedSubclasses()).forEach(c -> written.add(EventLines.type(c)));
    written.add("session");
    assertThat(documented.keySet()).as("the README documents no type that is never written").isEqualTo(written);
  }

  @Test
  void theReadmeListsEveryErrorCodeAnErrorLineCanCarry() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    String row = readme.lines().filter(l -> l.startsWith("| `error` |")).findFirst().orElseThrow();
    Set<String> listed = new LinkedHashSet<>();
    Matcher code = Pattern.compile("`([a-z_]+)`").matcher(row.substring(row.indexOf('(')));
    while (code.find()) {
      listed.add(code.group(1));
    }
    listed.remove("message");
    assertThat(listed).containsExactlyInAnyOrderElementsOf(
        Arrays.stream(ErrorKind.values()).map(ErrorKind::code).toList());
  }

  @Test
  void theArgumentDashOrNoPromptWithAPipeReadsThePromptFromStandardInput() throws Exception {
    String first = script("{\"responses\": [{\"expectLastUser\": \"from the pipe\\nsecond line\", \"text\": \"one\"}]}");
    String second = script("{\"responses\": [{\"expectLastUser\": \"piped again\", \"text\": \"two\"}]}");

    Run dash = exec("from the pipe\nsecond line\n", false, "--script", first, "-");
    assertThat(dash.exit()).as(dash.err()).isZero();
    assertThat(dash.out()).isEqualTo("one\n");

    Run none = exec("  piped again \n", false, "--session", sessionOf(dash), "--script", second);
    assertThat(none.exit()).as(none.err()).isZero();
    assertThat(none.out()).isEqualTo("two\n");
  }

  private static String sessionOf(Run run) {
    Matcher m = Pattern.compile("waymark: session (\\S+), tab").matcher(run.err());
    assertThat(m.find()).as(run.err()).isTrue();
    return m.group(1);
  }

  @Test
  void noPromptOnATerminalOrAnEmptyPipeIsABadArgumentNotAWait() throws Exception {
    String script = script("{\"responses\": [{\"text\": \"never\"}]}");

    Run terminal = exec("", true, "--script", script);
    assertThat(terminal.exit()).isEqualTo(2);
    assertThat(terminal.err()).contains("No prompt");

    Run empty = exec(" \n", false, "--script", script, "-");
    assertThat(empty.exit()).isEqualTo(2);
    assertThat(empty.err()).contains("standard input is empty");
  }

  @Test
  void outputLastMessageWritesTheAnswerAfterTheLastToolCall() throws Exception {
    String script = script("""
        {"responses": [
          {"text": "Let me look.", "toolCalls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
          {"text": "a.txt holds **A**."}
        ]}""");
    Path answer = temp.resolve("out/answer.md");
    Files.createDirectories(answer.getParent());
    Files.writeString(answer, "stale");

    Run run = exec("", true, "--script", script, "--output-last-message", answer.toString(), "what is in a.txt");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(Files.readString(answer)).isEqualTo("a.txt holds **A**.\n");
    assertThat(Files.list(answer.getParent())).as("no temporary file left").hasSize(1);
  }

  @Test
  void anOutputFileThatCannotBeWrittenFailsTheRunWithOneLine() throws Exception {
    String script = script("{\"responses\": [{\"text\": \"hi\"}]}");

    Run run = exec("", true, "--script", script, "--output-last-message", temp.resolve("no/such/dir/a.md").toString(), "hello");

    assertThat(run.exit()).as("refused before the turn runs").isEqualTo(2);
    assertThat(run.err()).contains("--output-last-message", "its directory does not exist");
    assertThat(Files.exists(temp.resolve("home/projects"))).as("no session was made").isFalse();

    Files.createDirectories(temp.resolve("ro"));
    Path readOnly = temp.resolve("ro/a.md");
    Files.createDirectories(readOnly); // a directory where the file should go
    Run directory = exec("", true, "--script", script, "--output-last-message", readOnly.toString(), "hello");
    assertThat(directory.exit()).isEqualTo(2);
    assertThat(directory.err()).contains("that is a directory");
  }

  @Test
  void sessionsListShowsEachSessionsFirstPromptAsItsTitleAndItsAge() throws Exception {
    String script = script("{\"responses\": [{\"text\": \"one\"}, {\"text\": \"two\"}]}");
    Run first = exec("", true, "--script", script, "explain   the build\nplease");
    exec("", true, "--session", sessionOf(first), "--script", script("{\"responses\": [{\"text\": \"x\"}]}"), "later");
    String longPrompt = "x".repeat(200);
    exec("", true, "--script", script, longPrompt);
    Run newest = exec("", true, "--script", script, "newest");

    StringWriter out = new StringWriter();
    int exit = Main.run(new String[] {"sessions", "list", "-C", project.toString()}, new WaymarkHome(temp.resolve("home")),
        new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), env);

    assertThat(exit).isZero();
    List<String> lines = out.toString().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).isEqualTo(sessionOf(newest) + "  just now  newest  (1 tab, 1 checkpoint)");
    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith(sessionOf(first) + "  just now  explain the build please  (1 tab, 2 checkpoints)"));
    assertThat(lines).anySatisfy(line -> assertThat(line).contains("  " + "x".repeat(59) + "…  (1 tab, 1 checkpoint)"));

    StringWriter json = new StringWriter();
    Main.run(new String[] {"sessions", "list", "--json", "-C", project.toString()}, new WaymarkHome(temp.resolve("home")),
        new PrintWriter(json, true), new PrintWriter(new StringWriter(), true), env);
    JsonNode rows = JSON.readTree(json.toString());
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0).get("title").asText()).isEqualTo("newest");
    assertThat(rows.get(0).get("age_seconds").asLong()).isBetween(0L, 60L);
  }

  @Test
  void agesAreSaidInTheLargestWholeUnit() {
    assertThat(SessionsCommand.age(Duration.ofSeconds(59))).isEqualTo("just now");
    assertThat(SessionsCommand.age(Duration.ofMinutes(5))).isEqualTo("5 min ago");
    assertThat(SessionsCommand.age(Duration.ofHours(3))).isEqualTo("3 h ago");
    assertThat(SessionsCommand.age(Duration.ofHours(30))).isEqualTo("1 day ago");
    assertThat(SessionsCommand.age(Duration.ofDays(12))).isEqualTo("12 days ago");
  }

  @Test
  void aConversationTooLongIsCompactedAndThePromptAnsweredWithTheSummaryKeptOffStdout() throws Exception {
    Run first = exec("", true, "--script", script("{\"responses\": [{\"text\": \"one\"}]}"), "first");
    String script = script("""
        {"responses": [
          {"error": {"kind": "CONTEXT_TOO_LONG", "message": "maximum context length is 8192 tokens"}},
          {"expectLastUser": "Summarise our conversation", "text": "SUMMARY", "usage": {"inputTokens": 8000, "outputTokens": 30}},
          {"expectLastUser": "second", "text": "the answer"}
        ]}""");

    Run second = exec("", true, "--session", sessionOf(first), "--script", script, "second");

    assertThat(second.exit()).as(second.err()).isZero();
    assertThat(second.out()).isEqualTo("the answer\n");
    assertThat(second.err()).contains("too long for the model", "compacts it");
  }

  @Test
  void anExecPromptsMentionsGoToTheModelWithItButTheSessionListsThePromptAsTyped() throws Exception {
    String script = script("{\"responses\": [{\"expectLastUser\": \"--- @a.txt ---\\nA\\n--- end of @a.txt ---\", "
        + "\"text\": \"It holds A.\"}]}");

    Run run = exec("", true, "--script", script, "what is in @a.txt?");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("It holds A.\n");
    StringWriter out = new StringWriter();
    Main.run(new String[] {"sessions", "list", "-C", project.toString()}, new WaymarkHome(temp.resolve("home")),
        new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), env);
    assertThat(out.toString()).contains("what is in @a.txt?  (1 tab").doesNotContain("Attached");
  }
}
