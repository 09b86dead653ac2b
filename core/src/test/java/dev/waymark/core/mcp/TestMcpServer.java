package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An MCP server for the tests, run in its own JVM over stdio: {@code normal} is built with the SDK's
 * own server classes; {@code silent} never answers; {@code garbage} answers every line with text
 * that is no JSON.
 */
public final class TestMcpServer {
  private TestMcpServer() {}

  /** The command that starts it in a fresh JVM with the tests' class path. */
  static List<String> command(String mode) {
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
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(tools(mapper))
        .build();
    Thread.currentThread().join(); // the transport's threads serve until stdin closes
    server.close();
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
          } catch (java.io.IOException e) {
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
      } catch (java.io.IOException e) {
        return McpSchema.CallToolResult.builder().addTextContent(e.toString()).isError(true).build();
      }
    }));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "env", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent(String.valueOf(System.getenv(String.valueOf(
            request.arguments().get("text"))))).build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "rich", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder()
            .addTextContent("here")
            .addContent(new McpSchema.ImageContent(null, java.util.Base64.getEncoder().encodeToString(new byte[1234]), "image/png"))
            .addContent(McpSchema.ResourceLink.builder().uri("file:///docs/a.md").name("a.md").mimeType("text/markdown")
                .size(42L).description("the docs").build())
            .structuredContent(Map.of("answer", 42))
            .build()));
    tools.add(new McpServerFeatures.SyncToolSpecification(tool(mapper, "said_twice", TEXT), (exchange, request) ->
        McpSchema.CallToolResult.builder().addTextContent("Wrote 3 lines").structuredContent(Map.of("content", "Wrote 3 lines"))
            .build()));
    return tools;
  }
}
