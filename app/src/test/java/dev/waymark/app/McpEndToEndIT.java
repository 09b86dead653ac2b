package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.testing.TestMcpServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MCP servers with the packaged jar: a server written in the tests (the SDK's own server classes,
 * its own JVM), and in CI the npm reference servers, called by a scripted model through
 * {@code waymark exec}; what they write is recorded and undone, and they end with the run.
 */
class McpEndToEndIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path temp;
  Path home;
  Path project;

  @BeforeEach
  void setUp() throws IOException {
    home = temp.resolve("home");
    project = Files.createDirectories(temp.resolve("project"));
  }

  record Run(int exit, String out, String err) {}

  private Run waymark(List<String> jvmOptions, String... args) throws Exception {
    ProcessBuilder pb = Waymark.process(temp, home, project, Waymark.command(jvmOptions, List.of(args)))
        .redirectOutput(temp.resolve("out.txt").toFile()).redirectError(temp.resolve("err.txt").toFile());
    Process process = pb.start();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("waymark did not end within 90 s; stderr: " + read("err.txt"));
    }
    return new Run(process.exitValue(), read("out.txt"), read("err.txt"));
  }

  private Run waymark(String... args) throws Exception {
    return waymark(List.of(), args);
  }

  private String read(String name) throws IOException {
    Path file = temp.resolve(name);
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }

  private void settings(ObjectNode servers) throws IOException {
    Path file = temp.resolve("config").resolve("waymark").resolve("settings.json");
    Files.createDirectories(file.getParent());
    ObjectNode root = JSON.createObjectNode();
    root.set("mcpServers", servers);
    Files.writeString(file, JSON.writeValueAsString(root));
  }

  private static ObjectNode stdio(ObjectNode servers, String name, List<String> command) {
    ObjectNode server = servers.putObject(name).put("command", command.get(0));
    ArrayNode args = server.putArray("args");
    command.subList(1, command.size()).forEach(args::add);
    return server;
  }

  private Path script(String tool, Map<String, String> arguments) throws IOException {
    return script(Map.of(tool, arguments));
  }

  /** A script: the tool calls (in the map's order), one per model reply, then a closing text. */
  private Path script(Map<String, Map<String, String>> toolCalls) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode responses = root.putArray("responses");
    for (var entry : toolCalls.entrySet()) {
      ObjectNode call = responses.addObject().putArray("toolCalls").addObject().put("name", entry.getKey());
      call.set("arguments", JSON.valueToTree(entry.getValue()));
    }
    responses.addObject().put("text", "Done.");
    Path file = temp.resolve("script.json");
    Files.writeString(file, JSON.writeValueAsString(root));
    return file;
  }

  private Run exec(Path script) throws Exception {
    return waymark("exec", "--provider", "scripted", "--script", script.toString(), "--approval", "yolo", "go");
  }

  @Test
  void aStdioServerIsListedItsWritesRecordedAndUndoneAndItEndsWithTheRun() throws Exception {
    ObjectNode servers = JSON.createObjectNode();
    stdio(servers, "t", TestMcpServer.command("normal"));
    servers.putObject("broken").put("command", temp.resolve("no-such-server").toString());
    settings(servers);
    Run list = waymark("mcp", "list");
    assertThat(list.exit()).as(list.err()).isEqualTo(1);
    assertThat(list.out()).contains("t  ready  ", "echo", "write", "broken  failed  ", "last error: MCP server broken did not start");

    Run run = exec(script("t__write", Map.of("path", "made.txt", "content", "by mcp\n")));
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(Files.readString(project.resolve("made.txt"))).isEqualTo("by mcp\n");
    assertThat(run.out() + run.err()).contains("made.txt");

    Run undo = waymark("checkpoints", "undo");
    assertThat(undo.exit()).as(undo.err()).isZero();
    assertThat(project.resolve("made.txt")).doesNotExist();

    Path pids = temp.resolve("pids.txt");
    Run spawn = exec(script("t__spawn", Map.of("text", pids.toString())));
    assertThat(spawn.exit()).as(spawn.err()).isZero();
    for (String pid : Files.readString(pids).strip().split(" ")) {
      ProcessHandle.of(Long.parseLong(pid)).ifPresent(p -> {
        try {
          p.onExit().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new AssertionError("process " + pid + " outlived the run", e);
        }
      });
    }
  }

  @Test
  void withNoServerConfiguredNothingOfTheMcpLibraryIsLoaded() throws Exception {
    Path script = temp.resolve("text.json");
    Files.writeString(script, "{\"responses\": [{\"text\": \"Hello.\"}]}");
    Run run = waymark(List.of("-verbose:class"), "exec", "--provider", "scripted", "--script", script.toString(), "hi");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("Hello.").contains("dev.waymark.core.mcp.McpServers")
        .doesNotContain("io.modelcontextprotocol", "reactor.core");
  }

  /** The npm reference servers, installed by the build before the ITs (app/pom.xml); their absence fails the test. */
  private Path npmServer(String bin) {
    Path dir = Path.of(System.getProperty("waymark.npm.servers", "target/npm-mcp"));
    Path server = dir.resolve("node_modules").resolve(".bin").resolve(bin);
    if (!Files.isExecutable(server)) {
      throw new AssertionError(server + " is missing: the build installs the npm MCP servers before the ITs "
          + "(the npm-mcp-servers execution in app/pom.xml; it needs node and npm)");
    }
    return server;
  }

  @Test
  void theNpmEverythingServerEchoesAndTheFilesystemServersWriteFileIsRecordedAndUndone() throws Exception {
    Path filesystem = npmServer("mcp-server-filesystem");
    Path everything = npmServer("mcp-server-everything");
    ObjectNode servers = JSON.createObjectNode();
    stdio(servers, "fs", List.of(filesystem.toAbsolutePath().toString(), project.toRealPath().toString()));
    stdio(servers, "everything", List.of(everything.toAbsolutePath().toString(), "stdio"));
    settings(servers);
    Path target = project.toRealPath().resolve("docs").resolve("from-npm.txt");
    Files.createDirectories(target.getParent());
    Map<String, Map<String, String>> calls = new LinkedHashMap<>();
    calls.put("everything__echo", Map.of("message", "hi from the model"));
    calls.put("fs__write_file", Map.of("path", target.toString(), "content", "written by server-filesystem\n"));
    Run run = exec(script(calls));
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err()).contains("✓ Echo: hi from the model");
    assertThat(Files.readString(target)).isEqualTo("written by server-filesystem\n");
    Run undo = waymark("checkpoints", "undo");
    assertThat(undo.exit()).as(undo.err()).isZero();
    assertThat(target).doesNotExist();
  }

  private Path expecting(String lastUser) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.putArray("responses").addObject().put("expectLastUser", lastUser).put("text", "Done.");
    Path file = temp.resolve("expecting.json");
    Files.writeString(file, JSON.writeValueAsString(root));
    return file;
  }

  @Test
  void execRunsTheNpmEverythingServersPromptAndAttachesItsResourcesAndSendsNothingWhenAnArgumentIsMissing() throws Exception {
    ObjectNode servers = JSON.createObjectNode();
    stdio(servers, "everything", List.of(npmServer("mcp-server-everything").toAbsolutePath().toString(), "stdio"));
    settings(servers);

    Run prompt = waymark("exec", "--provider", "scripted", "--script", expecting("What's weather in Paris, Texas?").toString(),
        "/everything:args-prompt Paris state=Texas");
    assertThat(prompt.exit()).as(prompt.err()).isZero();
    assertThat(prompt.out()).contains("Done.");

    String doc = "@everything:demo://resource/static/document/architecture.md";
    String blob = "@everything:demo://resource/dynamic/blob/1";
    Run attached = waymark("exec", "--provider", "scripted", "--script",
        expecting("\n--- " + blob + ": binary content (").toString(), "summarise " + doc + " and " + blob + ".");
    assertThat(attached.exit()).as(attached.err()).isZero();
    assertThat(attached.err()).contains("waymark: Attached " + doc + " (", "waymark: Attached " + blob
        + " (binary: named, not attached)");
    StringBuilder sessions = new StringBuilder();
    try (var files = Files.walk(home)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json") && f.getParent().endsWith("sessions")).toList()) {
        sessions.append(Files.readString(file));
      }
    }
    assertThat(sessions).contains("--- " + doc + " ---\\n# Everything Server"); // what the model got, kept in the session

    Run missing = waymark("exec", "--provider", "scripted", "--script", expecting("never sent").toString(),
        "/everything:args-prompt");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("waymark: /everything:args-prompt needs city (Name of the city). Usage: "
        + "/everything:args-prompt <city> [state]");
    assertThat(missing.out()).doesNotContain("Done.");
  }
}
