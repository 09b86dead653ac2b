package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.tool.ToolResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** One live session with one MCP server: the seam behind which the SDK stays. */
interface McpConnection extends AutoCloseable {
  /** A tool as the server lists it. */
  record ToolInfo(String name, String description, JsonNode inputSchema) {}

  List<ToolInfo> tools();

  /** Calls {@code tool}, blocking at most the call timeout; the server's own errors ({@code isError}) come back as an error result. */
  ToolResult call(String tool, JsonNode arguments) throws McpFailure;

  /** Completes when the server's process ends (never, for an HTTP server). */
  CompletableFuture<?> exited();

  /** Ends the session and stops the server's process and everything it started. */
  @Override
  void close();

  /**
   * Starts a server and completes its {@code initialize}, within the config's start timeout. A
   * stdio server's processes carry {@code mark}, so that they can be stopped even while it starts.
   */
  interface Factory {
    McpConnection connect(McpServerConfig config, Environment environment, dev.waymark.core.checkpoint.shell.CommandMark mark)
        throws McpFailure;
  }

  /**
   * Where a server runs: the project root (the default working directory), the variables
   * {@code ${NAME}} may name, and those a server's process must not get (the provider keys).
   */
  record Environment(Path projectRoot, Map<String, String> variables, Set<String> withheld) {
    public Environment {
      variables = Map.copyOf(variables);
      withheld = Set.copyOf(withheld);
    }
  }
}
