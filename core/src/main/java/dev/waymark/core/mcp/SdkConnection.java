package dev.waymark.core.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.tool.ToolResult;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection through the official MCP Java SDK ({@code McpSyncClient}), over stdio or
 * streamable HTTP, once {@link SdkStart} started it. With those two and {@link SdkContentText},
 * the only classes that touch the SDK; loaded by name (see {@link McpServers}).
 *
 * <p>A stdio server runs with a {@link CommandMark} in its environment, so that it and whatever it
 * starts (npx starts node) can all be found and stopped, and its death is seen at once.
 */
final class SdkConnection implements McpConnection {
  private static final Logger LOG = LoggerFactory.getLogger(SdkConnection.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long STOP_WAIT_MILLIS = 2_000;

  private final McpServerConfig config;
  private final McpSyncClient client;
  private final CommandMark mark;
  private final CompletableFuture<?> exited;
  private final List<ToolInfo> tools;
  private final Listed listed;

  SdkConnection(McpServerConfig config, McpSyncClient client, CommandMark mark, CompletableFuture<?> exited,
      List<ToolInfo> tools, Listed listed) {
    this.config = config;
    this.client = client;
    this.mark = mark;
    this.exited = exited;
    this.tools = List.copyOf(tools);
    this.listed = listed;
  }

  /**
   * The server's prompts and resources as last listed: made before the client, since the SDK
   * hands the lists it fetches again on a list_changed to consumers given when it is built.
   */
  static final class Listed {
    private final String server;
    private volatile List<McpPrompt> prompts = List.of();
    private volatile List<McpResource> resources = List.of();
    private volatile Runnable listener = () -> {};

    Listed(String server) {
      this.server = server;
    }

    void prompts(List<McpSchema.Prompt> fresh) {
      prompts = fresh.stream().map(p -> prompt(server, p)).toList();
      listener.run();
    }

    void resources(List<McpSchema.Resource> fresh) {
      resources = fresh.stream().map(r -> resource(server, r)).toList();
      listener.run();
    }
  }

  private static McpPrompt prompt(String server, McpSchema.Prompt prompt) {
    List<McpPrompt.Argument> arguments = new ArrayList<>();
    for (McpSchema.PromptArgument argument : prompt.arguments() == null ? List.<McpSchema.PromptArgument>of() : prompt.arguments()) {
      arguments.add(new McpPrompt.Argument(argument.name(), argument.description(), Boolean.TRUE.equals(argument.required())));
    }
    String description = prompt.description() != null ? prompt.description() : prompt.title();
    return new McpPrompt(server, prompt.name(), description, arguments);
  }

  private static McpResource resource(String server, McpSchema.Resource resource) {
    return new McpResource(server, resource.uri(), resource.name(), resource.mimeType(),
        resource.size() == null ? -1 : resource.size());
  }

  /** Made by name from {@link McpServers}, so that the SDK loads only when a server is configured. */
  static final class Factory implements McpConnection.Factory {
    @Override
    public McpConnection connect(McpServerConfig config, Environment environment, CommandMark mark) throws McpFailure {
      return SdkStart.connect(config, environment, mark);
    }
  }

  static String describe(Throwable e) {
    if (e instanceof McpError mcp && mcp.getJsonRpcError() != null) {
      return mcp.getJsonRpcError().message() + " (JSON-RPC error " + mcp.getJsonRpcError().code() + ")";
    }
    Throwable root = McpError.findRootCause(e);
    String message = root.getMessage() != null ? root.getMessage() : e.getMessage();
    return message != null ? message.lines().findFirst().orElse(message) : root.getClass().getSimpleName();
  }

  @Override
  public List<ToolInfo> tools() {
    return tools;
  }

  @Override
  public List<McpPrompt> prompts() {
    return listed.prompts;
  }

  @Override
  public List<McpResource> resources() {
    return listed.resources;
  }

  @Override
  public void onListsChanged(Runnable listener) {
    listed.listener = listener;
  }

  @Override
  public List<PromptMessage> prompt(String name, Map<String, String> arguments) throws McpFailure {
    McpSchema.GetPromptResult result;
    try {
      result = client.getPrompt(new McpSchema.GetPromptRequest(name, new LinkedHashMap<>(arguments)));
    } catch (McpError e) {
      throw e.getJsonRpcError() != null ? new McpFailure(ErrorKind.TOOL_FAILED, "the server answered with an error: " + describe(e)) : failure(e);
    } catch (RuntimeException e) {
      throw failure(e);
    }
    List<PromptMessage> messages = new ArrayList<>();
    for (McpSchema.PromptMessage message : result.messages() == null ? List.<McpSchema.PromptMessage>of() : result.messages()) {
      String role = message.role() == McpSchema.Role.ASSISTANT ? "assistant" : "user";
      messages.add(new PromptMessage(role, SdkContentText.part(message.content())));
    }
    return messages;
  }

  @Override
  public List<ResourceContent> read(String uri) throws McpFailure {
    McpSchema.ReadResourceResult result;
    try {
      result = client.readResource(new McpSchema.ReadResourceRequest(uri));
    } catch (McpError e) {
      throw e.getJsonRpcError() != null ? new McpFailure(ErrorKind.TOOL_FAILED, "the server answered with an error: " + describe(e)) : failure(e);
    } catch (RuntimeException e) {
      throw failure(e);
    }
    List<ResourceContent> contents = new ArrayList<>();
    for (McpSchema.ResourceContents part : result.contents() == null ? List.<McpSchema.ResourceContents>of() : result.contents()) {
      if (part instanceof McpSchema.TextResourceContents text) {
        contents.add(new ResourceContent(text.uri(), text.mimeType(), text.text() == null ? "" : text.text(), 0));
      } else if (part instanceof McpSchema.BlobResourceContents blob) {
        contents.add(new ResourceContent(blob.uri(), blob.mimeType(), null, SdkContentText.decodedSize(blob.blob())));
      }
    }
    return contents;
  }

  @Override
  public ToolResult call(String tool, JsonNode arguments) throws McpFailure {
    Map<String, Object> args = JSON.convertValue(arguments, new TypeReference<Map<String, Object>>() {});
    McpSchema.CallToolResult result;
    try {
      result = client.callTool(new McpSchema.CallToolRequest(tool, args));
    } catch (McpError e) {
      if (e.getJsonRpcError() != null) {
        throw new McpFailure(ErrorKind.TOOL_FAILED, "the server answered with an error: " + describe(e));
      }
      throw failure(e);
    } catch (RuntimeException e) {
      throw failure(e);
    }
    String text = SdkContentText.text(result);
    return Boolean.TRUE.equals(result.isError()) ? ToolResult.error(ErrorKind.TOOL_FAILED, "The tool reported an error:\n" + text)
        : ToolResult.ok(text);
  }

  private McpFailure failure(RuntimeException e) {
    Throwable root = McpError.findRootCause(e);
    if (root instanceof TimeoutException) {
      return new McpFailure(ErrorKind.TIMED_OUT, "no answer within " + config.callTimeout().toSeconds() + " s");
    }
    if (exited.isDone()) {
      return new McpFailure(ErrorKind.TOOL_FAILED, "the server's process ended during the call");
    }
    return new McpFailure(ErrorKind.TOOL_FAILED, describe(e));
  }

  @Override
  public CompletableFuture<?> exited() {
    return exited;
  }

  @Override
  public void close() {
    stop(client, mark);
  }

  static void stop(McpSyncClient client, CommandMark mark) {
    CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
      try {
        client.closeGracefully();
      } catch (RuntimeException e) {
        LOG.debug("MCP client did not close gracefully: {}", e.toString());
      }
    });
    try {
      closing.get(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug("MCP client close: {}", e.toString());
    }
    if (mark != null && CommandMark.findable()) {
      mark.stopAll(STOP_WAIT_MILLIS); // what it started too: npx's node, a server's own children
    }
  }
}
