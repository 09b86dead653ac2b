package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.tool.ToolResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** One live session with one MCP server: the seam behind which the SDK stays. */
interface McpConnection extends AutoCloseable {
  /** A tool as the server lists it. */
  /** A tool the server offers; {@code readOnly} is its {@code readOnlyHint} annotation (absent means false). */
  record ToolInfo(String name, String description, JsonNode inputSchema, boolean readOnly) {}

  List<ToolInfo> tools();

  /** A message of a prompt, in words: its role ({@code user} or {@code assistant}) and its text. */
  record PromptMessage(String role, String text) {}

  /** One part of a resource: its text, or for a blob ({@code text} null) its type and size only. */
  record ResourceContent(String uri, String mimeType, String text, long blobBytes) {}

  /** The server's prompts as last listed (at the start, and again when it says they changed). */
  List<McpPrompt> prompts();

  /** The server's resources as last listed. */
  List<McpResource> resources();

  /** Gets prompt {@code name} filled with {@code arguments}, blocking at most the call timeout. */
  List<PromptMessage> prompt(String name, Map<String, String> arguments) throws McpFailure;

  /** Reads resource {@code uri}, blocking at most the call timeout. */
  List<ResourceContent> read(String uri) throws McpFailure;

  /** Called (on the SDK's thread) when the server says its prompts or resources changed, after they are listed again. */
  void onListsChanged(Runnable listener);

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
    McpConnection connect(McpServerConfig config, Environment environment, CommandMark mark)
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
