package dev.waymark.core.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An MCP server for the tests, run in its own JVM over stdio: {@code normal} is built with the SDK's
 * own server classes; {@code silent} never answers; {@code garbage} answers every line with text
 * that is no JSON.
 */
public final class TestMcpServer {
  private TestMcpServer() {}

  /** The command that starts it in a fresh JVM with the tests' class path. */
  public static List<String> command(String mode) {
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), TestMcpServer.class.getName(), mode);
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length == 0 ? "normal" : args[0];
    if (args.length > 1) {
      Files.writeString(Path.of(args[1]), Long.toString(ProcessHandle.current().pid()));
    }
    if (mode.equals("silent") || mode.equals("garbage")) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null; ) {
        if (mode.equals("garbage")) {
          System.out.println("{this is not json");
          System.out.flush();
        }
      }
      return;
    }
    System.err.println("test server starting in " + Path.of("").toAbsolutePath());
    JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    StdioServerTransportProvider transport = new StdioServerTransportProvider(mapper);
    McpSyncServer server = McpServer.sync(transport)
        .serverInfo("waymark-test", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).prompts(true).resources(false, true).build())
        .tools(tools(mapper))
        .prompts(prompts())
        .resources(resources())
        .build();
    SERVER[0] = server;
    Thread.currentThread().join(); // the transport's threads serve until stdin closes
    server.close();
  }

  /** The server itself, for the tool that changes its prompts and resources (and says so). */
  private static final McpSyncServer[] SERVER = new McpSyncServer[1];

  /** The size of the text of {@code test://big.txt}: past the limit of what a mention attaches. */
  static final int BIG = 150_000;

  private static McpServerFeatures.SyncPromptSpecification prompt(String name, String description,
      List<McpSchema.PromptArgument> arguments,
      Function<Map<String, Object>, List<McpSchema.PromptMessage>> messages) {
    return new McpServerFeatures.SyncPromptSpecification(new McpSchema.Prompt(name, description, arguments),
        (exchange, request) -> new McpSchema.GetPromptResult(description, messages.apply(request.arguments() == null
            ? Map.of() : request.arguments())));
  }

  private static McpSchema.PromptMessage user(String text) {
    return new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.TextContent(text));
  }

  private static List<McpServerFeatures.SyncPromptSpecification> prompts() {
    List<McpServerFeatures.SyncPromptSpecification> prompts = new ArrayList<>();
    prompts.add(prompt("greet", "Greets someone", List.of(new McpSchema.PromptArgument("name", "who is greeted", true),
        new McpSchema.PromptArgument("style", "how", false)), args -> List.of(user("Say hello to " + args.get("name")
            + (args.get("style") == null ? "" : " in a " + args.get("style") + " way") + "."))));
    prompts.add(prompt("dialogue", "An example exchange", List.of(), args -> List.of(user("What is 2+2?"),
        new McpSchema.PromptMessage(McpSchema.Role.ASSISTANT, new McpSchema.TextContent("4")), user("And 3+3?"))));
    prompts.add(prompt("broken", "Always fails", List.of(), args -> {
      throw McpError.builder(-32603).message("the prompt is broken").build();
    }));
    return prompts;
  }

  private static McpServerFeatures.SyncResourceSpecification resource(String uri, String mimeType,
      Supplier<McpSchema.ResourceContents> contents) {
    return new McpServerFeatures.SyncResourceSpecification(McpSchema.Resource.builder(uri, uri.substring(uri.lastIndexOf('/') + 1))
        .mimeType(mimeType).build(), (exchange, request) -> new McpSchema.ReadResourceResult(List.of(contents.get())));
  }

  private static List<McpServerFeatures.SyncResourceSpecification> resources() {
    List<McpServerFeatures.SyncResourceSpecification> resources = new ArrayList<>();
    resources.add(resource("test://notes/a.txt", "text/plain",
        () -> new McpSchema.TextResourceContents("test://notes/a.txt", "text/plain", "the notes of a\n")));
    resources.add(resource("test://big.txt", "text/plain",
        () -> new McpSchema.TextResourceContents("test://big.txt", "text/plain", "x".repeat(BIG))));
    resources.add(resource("test://logo.png", "image/png", () -> new McpSchema.BlobResourceContents("test://logo.png",
        "image/png", Base64.getEncoder().encodeToString(new byte[300]))));
    resources.add(resource("test://gone.txt", "text/plain", () -> {
      throw McpError.builder(-32002).message("gone.txt is gone").build();
    }));
    return resources;
  }

  private static McpSchema.Tool tool(JacksonMcpJsonMapper mapper, String name, String schema) {
    return McpSchema.Tool.builder().name(name).description("test tool " + name).inputSchema(mapper, schema).build();
  }

  private static final String TEXT = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}";

  private static List<McpServerFeatures.SyncToolSpecification> tools(JacksonMcpJsonMapper mapper) {
    List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "echo", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent("echo: " + request.arguments().get("text")).build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "fail", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent("it went wrong: " + request.arguments().get("text"))
            .isError(true).build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "rpc_error", TEXT), (exchange, request) -> {
      throw McpError.builder(-32602).message("no such thing: " + request.arguments().get("text")).build();
    }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "slow", TEXT), (exchange, request) -> {
      try {
        // not a wait of a test: this tool's work is to take that long (the tests of a call's timeout)
        Thread.sleep(Long.parseLong(String.valueOf(request.arguments().get("text"))));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return McpSchema.CallToolResult.builder().addTextContent("slept").build();
    }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "die", TEXT), (exchange, request) -> {
      System.err.println("dying now");
      Runtime.getRuntime().halt(3);
      return null;
    }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "write",
        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}}}"),
        (exchange, request) -> {
          try {
            Files.writeString(Path.of(String.valueOf(request.arguments().get("path"))),
                String.valueOf(request.arguments().get("content")));
          } catch (IOException e) {
            return McpSchema.CallToolResult.builder().addTextContent(e.toString()).isError(true).build();
          }
          return McpSchema.CallToolResult.builder().addTextContent("wrote").build();
        }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "spawn", TEXT), (exchange, request) -> {
      try {
        Process child = new ProcessBuilder("sleep", "600").start();
        String pids = ProcessHandle.current().pid() + " " + child.pid();
        Object into = request.arguments().get("text");
        if (into != null) {
          Files.writeString(Path.of(String.valueOf(into)), pids);
        }
        return McpSchema.CallToolResult.builder().addTextContent(pids).build();
      } catch (IOException e) {
        return McpSchema.CallToolResult.builder().addTextContent(e.toString()).isError(true).build();
      }
    }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "env", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent(String.valueOf(System.getenv(String.valueOf(
            request.arguments().get("text"))))).build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "rich", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder()
            .addTextContent("here")
            .addContent(new McpSchema.ImageContent(null, Base64.getEncoder().encodeToString(new byte[1234]), "image/png"))
            .addContent(McpSchema.ResourceLink.builder().uri("file:///docs/a.md").name("a.md").mimeType("text/markdown")
                .size(42L).description("the docs").build())
            .structuredContent(Map.of("answer", 42))
            .build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "add_prompt_and_resource", TEXT), (exchange, request) -> {
      String name = String.valueOf(request.arguments().get("text"));
      SERVER[0].addPrompt(prompt(name, "added while running", List.of(), args -> List.of(user("the " + name + " prompt"))));
      SERVER[0].addResource(resource("test://" + name + ".txt", "text/plain",
          () -> new McpSchema.TextResourceContents("test://" + name + ".txt", "text/plain", "added " + name)));
      SERVER[0].notifyPromptsListChanged();
      SERVER[0].notifyResourcesListChanged();
      return McpSchema.CallToolResult.builder().addTextContent("added " + name).build();
    }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "said_twice", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent("Wrote 3 lines").structuredContent(Map.of("content", "Wrote 3 lines"))
            .build()));
    // two tools that model APIs would both call t__list_issues; the one whose name needs no change is listed second
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "list.issues", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent("ran list.issues").build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "list_issues", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent("ran list_issues").build()));
    return tools;
  }
}
