package dev.waymark.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.testing.TestMcpServer;
import dev.waymark.core.tool.McpTool;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolResult;
import dev.waymark.core.tool.ToolSettings;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real MCP servers through the SDK: one written here with the SDK's server classes in its own JVM over stdio, one on HTTP. */
@Tag("process")
class McpServersTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path project;
  McpServers servers;

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private McpServers start(Map<String, String> environment, Set<String> allowed, McpServerConfig... configs) {
    servers = McpServers.start(List.of(configs), new McpServers.Options(project, environment, allowed,
        ToolSettings.DEFAULTS.withholding(List.of("SECRET_KEY"))));
    return servers;
  }

  private static McpServerConfig stdio(String name, String mode) {
    List<String> command = TestMcpServer.command(mode);
    return McpServerConfig.stdio(name, command.get(0), command.subList(1, command.size()))
        .withTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(30));
  }

  private Tool tool(String name) {
    return servers.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(
        () -> new AssertionError(name + " not among " + servers.tools().stream().map(Tool::name).toList() + " " + servers.status()));
  }

  private ToolResult call(String name, Object... namesAndValues) {
    var arguments = JSON.createObjectNode();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      arguments.set((String) namesAndValues[i], JSON.valueToTree(namesAndValues[i + 1]));
    }
    return tool(name).run(arguments, new ToolContext(project, null, new Cancellation()));
  }

  @Test
  void listsAndCallsTheToolsOfAStdioServerAndItsErrorsComeBackAsToolErrors() {
    start(Map.of(), Set.of("t__echo"), stdio("t", "normal"));
    assertThat(servers.tools()).extracting(Tool::name)
        .contains("t__echo", "t__fail", "t__rpc_error", "t__slow", "t__die", "t__write", "t__rich");
    JsonNode schema = tool("t__echo").spec().parameters();
    assertThat(schema.path("properties").path("text").path("type").asText()).isEqualTo("string");
    assertThat(tool("t__echo").preApproved()).isTrue();
    assertThat(tool("t__fail").preApproved()).isFalse();

    assertThat(call("t__echo", "text", "hi")).isEqualTo(ToolResult.ok("echo: hi\n"));
    ToolResult failed = call("t__fail", "text", "boom");
    assertThat(failed.isError()).isTrue();
    assertThat(failed.content()).contains("The tool reported an error").contains("it went wrong: boom");
    ToolResult rpc = call("t__rpc_error", "text", "x");
    assertThat(rpc.isError()).isTrue();
    assertThat(rpc.content()).contains("MCP server t, tool rpc_error failed").contains("no such thing: x")
        .contains("-32602");
    assertThat(call("t__echo", "text", "still fine")).isEqualTo(ToolResult.ok("echo: still fine\n"));

    McpServers.Status status = servers.status().get(0);
    assertThat(status.state()).isEqualTo(McpServers.State.READY);
    assertThat(status.tools()).contains("echo", "write");
    assertThat(status.lastError()).hasValueSatisfying(e -> assertThat(e).contains("no such thing"));
  }

  @Test
  void twoToolsWhoseNamesSanitizeAlikeGetDistinctNamesAndAreAllowedOnlyByTheirOwn() {
    List<String> told = new CopyOnWriteArrayList<>();
    start(Map.of(), Set.of("t__list_issues"), stdio("t", "normal"));
    servers.onProblem(told::add);
    List<String> names = servers.tools().stream().map(Tool::name).toList();
    assertThat(names).doesNotHaveDuplicates().contains("t__list_issues", "t__list_issues_2");

    // the tool whose name needed no change keeps it, whichever the server listed first
    McpTool exact = (McpTool) tool("t__list_issues");
    McpTool dotted = (McpTool) tool("t__list_issues_2");
    assertThat(exact.tool()).isEqualTo("list_issues");
    assertThat(dotted.tool()).isEqualTo("list.issues");
    assertThat(call("t__list_issues").content()).isEqualTo("ran list_issues\n");
    assertThat(call("t__list_issues_2").content()).isEqualTo("ran list.issues\n");

    // allowedTools and rules name the server's real tool: t__list_issues allows list_issues only
    assertThat(exact.preApproved()).isTrue();
    assertThat(dotted.preApproved()).isFalse();
    assertThat(dotted.ruleName()).isEqualTo("mcp__t__list.issues");
    Permissions rules = new Permissions(List.of(
        new Permissions.Entry(Permissions.Scope.USER, false,
            PermissionRule.parse("mcp__t__list_issues"))),
        Permissions.RuleFiles.NONE);
    assertThat(rules.check(exact.ruleName(), Optional.empty()).outcome())
        .isEqualTo(Permissions.Outcome.ALLOW);
    assertThat(rules.check(dotted.ruleName(), Optional.empty()).outcome())
        .isEqualTo(Permissions.Outcome.ASK);

    // the chat says which tool got which name, once
    servers.tools();
    assertThat(told).filteredOn(m -> m.contains("list.issues")).hasSize(1).allSatisfy(m -> assertThat(m)
        .contains("t__list_issues_2").contains("list_issues"));
  }

  @Test
  void imagesAndResourceLinksAreNamedByTypeAndSizeAndStructuredContentIsPassedOn() {
    start(Map.of(), Set.of(), stdio("t", "normal"));
    assertThat(call("t__rich").content()).isEqualTo("here\n[image: image/png, 1234 bytes]\n"
        + "[resource link: file:///docs/a.md \"a.md\", text/markdown, 42 bytes] the docs\n"
        + "Structured content: {\"answer\":42}\n");
    assertThat(call("t__said_twice").content()).isEqualTo("Wrote 3 lines\n"); // not again as structured content
  }

  @Test
  void theServerRunsInTheProjectWithoutTheProviderKeys() throws Exception {
    start(Map.of(), Set.of(), stdio("t", "normal"));
    assertThat(call("t__write", "path", "here.txt", "content", "x").isError()).isFalse();
    assertThat(Files.readString(project.resolve("here.txt"))).isEqualTo("x");
    assertThat(call("t__env", "text", "OPENAI_API_KEY").content()).isEqualTo("null\n");
  }

  @Test
  void aCallOverItsTimeoutIsGivenUpAndTheServerGoesOn() {
    List<String> command = TestMcpServer.command("normal");
    start(Map.of(), Set.of(), McpServerConfig.stdio("t", command.get(0), command.subList(1, command.size()))
        .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(30)));
    ToolResult slow = call("t__slow", "text", "5000");
    assertThat(slow.isError()).isTrue();
    assertThat(slow.content()).contains("did not answer within 1 s");
    assertThat(call("t__echo", "text", "after").content()).isEqualTo("echo: after\n");
  }

  @Test
  void aServerThatDiesMidCallIsAToolErrorItIsRestartedOnceThenLeftDown() {
    start(Map.of(), Set.of(), stdio("t", "normal"));
    Tool echo = tool("t__echo");
    List<String> told = new CopyOnWriteArrayList<>();
    servers.onProblem(told::add);
    ToolResult died = call("t__die");
    assertThat(died.isError()).isTrue();
    assertThat(died.content()).contains("MCP server t stopped during the call");
    assertThat(call("t__echo", "text", "again")).isEqualTo(ToolResult.ok("echo: again\n")); // restarted
    assertThat(call("t__die").isError()).isTrue();
    ToolResult down = echo.run(JSON.createObjectNode().put("text", "no more"), new ToolContext(project, null, new Cancellation()));
    assertThat(down.isError()).isTrue();
    assertThat(down.content()).contains("is not running").contains("not restarted");
    assertThat(servers.status().get(0).state()).isEqualTo(McpServers.State.FAILED);
    assertThat(servers.tools()).isEmpty();
    // the test server also has two tools named alike, which the chat is told of once
    assertThat(told).filteredOn(m -> !m.contains("offered to the model as")).hasSize(2)
        .allMatch(m -> m.contains("MCP server t stopped unexpectedly"));
  }

  @Test
  void aServerThatNeverAnswersInitializeFailsWithinItsStartTimeout() {
    List<String> command = TestMcpServer.command("silent");
    start(Map.of(), Set.of(), McpServerConfig.stdio("quiet", command.get(0), command.subList(1, command.size()))
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(2)));
    assertThat(servers.tools()).isEmpty();
    McpServers.Status status = servers.status().get(0);
    assertThat(status.state()).isEqualTo(McpServers.State.FAILED);
    assertThat(status.lastError()).hasValueSatisfying(e -> assertThat(e)
        .contains("MCP server quiet did not start").contains("initialize"));
  }

  @Test
  void aServerThatAnswersWithMalformedJsonFailsClearly() {
    List<String> command = TestMcpServer.command("garbage");
    start(Map.of(), Set.of(), McpServerConfig.stdio("junk", command.get(0), command.subList(1, command.size()))
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(2)));
    assertThat(servers.tools()).isEmpty();
    assertThat(servers.status().get(0).lastError()).hasValueSatisfying(e -> assertThat(e)
        .contains("MCP server junk did not start"));
  }

  @Test
  void aCommandThatDoesNotExistIsNamed() {
    start(Map.of(), Set.of(), McpServerConfig.stdio("gone", "/nonexistent/mcp-server", List.of()),
        McpServerConfig.stdio("typo", "no-such-mcp-server-anywhere", List.of()));
    assertThat(servers.tools()).isEmpty();
    assertThat(servers.status().get(0).lastError()).contains(
        "MCP server gone did not start: its command /nonexistent/mcp-server is not an executable file");
    assertThat(servers.status().get(1).lastError()).contains(
        "MCP server typo did not start: its command \"no-such-mcp-server-anywhere\" is not on the PATH");
    List<String> told = new CopyOnWriteArrayList<>();
    servers.onProblem(told::add); // a listener that comes after the failures still hears of them
    assertThat(told).hasSize(2).allMatch(m -> m.contains("did not start") && m.endsWith("(/mcp or `waymark mcp list` shows the servers)"));
  }

  @Test
  void closingStopsTheServerAndWhatItStarted() throws Exception {
    start(Map.of(), Set.of(), stdio("t", "normal"));
    String[] pids = call("t__spawn").content().strip().split(" ");
    ProcessHandle server = ProcessHandle.of(Long.parseLong(pids[0])).orElseThrow();
    ProcessHandle child = ProcessHandle.of(Long.parseLong(pids[1])).orElseThrow();
    servers.close();
    servers = null;
    server.onExit().get(5, TimeUnit.SECONDS);
    child.onExit().get(5, TimeUnit.SECONDS);
    assertThat(server.isAlive()).isFalse();
    assertThat(child.isAlive()).isFalse();
  }

  @Test
  void closingWhileAServerIsStillStartingStopsIt() throws Exception {
    Path pidFile = project.resolve("pid");
    List<String> command = new ArrayList<>(TestMcpServer.command("silent"));
    command.add(pidFile.toString());
    start(Map.of(), Set.of(), McpServerConfig.stdio("slow", command.get(0), command.subList(1, command.size()))
        .withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(60)));
    Eventually.until("the server started", () -> Files.exists(pidFile) && !Files.readString(pidFile).isEmpty());
    ProcessHandle server = ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip())).orElseThrow();
    assertThat(servers.status().get(0).state()).isEqualTo(McpServers.State.STARTING);
    servers.close();
    servers = null;
    server.onExit().get(5, TimeUnit.SECONDS);
    assertThat(server.isAlive()).isFalse();
  }

  @Test
  void aStreamableHttpServerIsListedAndCalledWithItsHeaderTakenFromTheEnvironment() throws Exception {
    try (TestHttpMcpServer http = new TestHttpMcpServer()) {
      start(Map.of("TEST_TOKEN", "s3cret"), Set.of(),
          McpServerConfig.http("web", http.url(), Map.of("Authorization", "Bearer ${TEST_TOKEN}")));
      assertThat(servers.tools()).extracting(Tool::name).containsExactly("web__echo");
      assertThat(call("web__echo", "text", "over http")).isEqualTo(ToolResult.ok("http echo: over http\n"));
      McpInput input = new McpInput(servers);
      assertThat(input.expand("/web:ask topic=boats")).isEqualTo(new McpInput.Expansion.Ready("Tell me about boats", List.of()));
      assertThat(((McpInput.Expansion.Ready) input.expand("see @web:http-test://readme")).text())
          .endsWith("--- @web:http-test://readme ---\nread over http\n--- end of @web:http-test://readme ---");
      assertThat(http.authorizations).isNotEmpty().allMatch("Bearer s3cret"::equals);
      http.garbage = true;
      ToolResult bad = call("web__echo", "text", "x");
      assertThat(bad.isError()).isTrue();
      assertThat(bad.content()).startsWith("MCP server web");
    }
  }

  @Test
  void anUnsetVariableInAHeaderAndAnUnreachableServerAreNamed() throws Exception {
    int closedPort;
    try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    start(Map.of(), Set.of(),
        McpServerConfig.http("nokey", "http://127.0.0.1:" + closedPort + "/mcp", Map.of("Authorization", "Bearer ${NOPE}")),
        McpServerConfig.http("down", "http://127.0.0.1:" + closedPort + "/mcp", Map.of())
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(3)));
    assertThat(servers.tools()).isEmpty();
    assertThat(servers.status().get(0).lastError()).hasValueSatisfying(e -> assertThat(e)
        .contains("the environment variable NOPE it names is not set"));
    assertThat(servers.status().get(1).lastError()).hasValueSatisfying(e -> assertThat(e)
        .contains("MCP server down did not start"));
    assertThat(servers.status()).allMatch(s -> s.state() == McpServers.State.FAILED);
  }

  @Test
  void noServerLoadsNothingOfTheSdk() {
    McpServers none = McpServers.start(List.of(), new McpServers.Options(project, Map.of(), Set.of(), ToolSettings.DEFAULTS));
    assertThat(none.isEmpty()).isTrue();
    assertThat(none.tools()).isEmpty();
    assertThat(none.status()).isEmpty();
    none.close();
    assertThat(McpTool.nameOf("a", "b")).isEqualTo("a__b");
  }

  @Test
  void aServersPromptsAreGotWithTheirArgumentsAndItsResourcesRead() throws Exception {
    start(Map.of(), Set.of(), stdio("t", "normal"));
    servers.awaitStatus();
    assertThat(servers.prompts()).extracting(McpPrompt::usage)
        .containsExactlyInAnyOrder("/t:greet <name> [style]", "/t:dialogue", "/t:broken");
    assertThat(servers.resources()).extracting(McpResource::mention)
        .contains("t:test://notes/a.txt", "t:test://big.txt", "t:test://logo.png");

    assertThat(servers.prompt("t", "greet", Map.of("name", "Ada", "style", "warm")))
        .containsExactly(new McpConnection.PromptMessage("user", "Say hello to Ada in a warm way."));
    assertThat(servers.read("t", "test://notes/a.txt"))
        .containsExactly(new McpConnection.ResourceContent("test://notes/a.txt", "text/plain", "the notes of a\n", 0));
    assertThat(servers.read("t", "test://logo.png"))
        .containsExactly(new McpConnection.ResourceContent("test://logo.png", "image/png", null, 300));
    assertThatThrownBy(() -> servers.prompt("t", "broken", Map.of())).isInstanceOf(McpFailure.class)
        .hasMessageContaining("MCP server t, prompt broken").hasMessageContaining("the prompt is broken");
    assertThatThrownBy(() -> servers.read("t", "test://nothing-here")).isInstanceOf(McpFailure.class)
        .hasMessageContaining("MCP server t, resource test://nothing-here");
    assertThatThrownBy(() -> servers.prompt("nope", "greet", Map.of())).isInstanceOf(McpFailure.class)
        .hasMessageContaining("there is no MCP server nope (configured: t)");
    assertThat(servers.prompt("t", "greet", Map.of("name", "Bo"))).extracting(McpConnection.PromptMessage::text)
        .containsExactly("Say hello to Bo."); // the server is still fine after its errors
    assertThat(McpServers.describe(servers.status())).contains("  resources: 4 (attach one with @t:URI; @ lists them)")
        .anySatisfy(line -> assertThat(line).startsWith("  prompts (3): ").contains("/t:greet", "/t:dialogue", "/t:broken"));
  }

  @Test
  void theListsAreFetchedAgainWhenTheServerSaysTheyChanged() throws Exception {
    start(Map.of(), Set.of(), stdio("t", "normal"));
    servers.awaitStatus();
    CountDownLatch changed = new CountDownLatch(2);
    servers.onListsChanged(changed::countDown);
    assertThat(call("t__add_prompt_and_resource", "text", "fresh").content()).contains("added fresh");
    assertThat(changed.await(10, TimeUnit.SECONDS)).isTrue();
    Eventually.until("the lists fetched again", () -> servers.prompts().stream().anyMatch(p -> p.name().equals("fresh"))
        && servers.resources().stream().anyMatch(r -> r.uri().equals("test://fresh.txt")));
    assertThat(servers.prompts()).extracting(McpPrompt::name).contains("fresh", "greet");
    assertThat(servers.resources()).extracting(McpResource::uri).contains("test://fresh.txt");
  }

  @Test
  void aDeadServerHasNoPromptsOrResourcesAndSaysSoWhenAsked() throws Exception {
    start(Map.of(), Set.of(), McpServerConfig.stdio("gone", "no-such-command-waymark", List.of()));
    servers.awaitStatus();
    assertThat(servers.prompts()).isEmpty();
    assertThat(servers.resources()).isEmpty();
    assertThatThrownBy(() -> servers.read("gone", "test://x")).isInstanceOf(McpFailure.class)
        .hasMessageContaining("MCP server gone is not running").hasMessageContaining("not on the PATH");
  }
}
