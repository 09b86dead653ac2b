package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.tool.ToolResult;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection through the official MCP Java SDK ({@code McpSyncClient}), over stdio or
 * streamable HTTP. The only class that touches the SDK; loaded by name (see {@link McpServers}).
 *
 * <p>A stdio server runs with a {@link CommandMark} in its environment, so that it and whatever it
 * starts (npx starts node) can all be found and stopped, and its death is seen at once.
 */
final class SdkConnection implements McpConnection {
  private static final Logger LOG = LoggerFactory.getLogger(SdkConnection.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int STDERR_LINES_KEPT = 5;
  private static final long STOP_WAIT_MILLIS = 2_000;

  private final McpServerConfig config;
  private final McpSyncClient client;
  private final CommandMark mark;
  private final CompletableFuture<?> exited;
  private final List<ToolInfo> tools;
  private final Listed listed;

  private SdkConnection(McpServerConfig config, McpSyncClient client, CommandMark mark, CompletableFuture<?> exited,
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
  private static final class Listed {
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
      return SdkConnection.connect(config, environment, mark);
    }
  }

  static McpConnection connect(McpServerConfig config, Environment environment, CommandMark processMark) throws McpFailure {
    JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    CommandMark mark = config.stdio() ? processMark : null;
    Deque<String> stderr = new ArrayDeque<>();
    McpClientTransport transport = config.stdio() ? stdio(config, environment, mapper, mark, stderr)
        : http(config, environment, mapper);
    Listed listed = new Listed(config.name());
    McpSyncClient client = McpClient.sync(transport)
        .clientInfo(new McpSchema.Implementation("waymark", "1"))
        .promptsChangeConsumer(listed::prompts)
        .resourcesChangeConsumer(listed::resources)
        // a call's own timeout is kept by McpServers; this one only bounds what no call waits for
        .requestTimeout(config.callTimeout().compareTo(config.startTimeout()) > 0 ? config.callTimeout() : config.startTimeout())
        .initializationTimeout(config.startTimeout())
        .build();
    java.util.concurrent.ExecutorService starter = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "waymark-mcp-start-" + config.name());
      t.setDaemon(true);
      return t;
    });
    try {
      Future<List<ToolInfo>> started = starter.submit(() -> {
        client.initialize();
        List<ToolInfo> tools = listTools(client);
        listPromptsAndResources(client, config, listed);
        return tools;
      });
      long deadline = System.nanoTime() + config.startTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
      Optional<ProcessHandle> process = Optional.empty();
      long startedAt = System.nanoTime();
      while (true) {
        try {
          List<ToolInfo> tools = started.get(100, TimeUnit.MILLISECONDS);
          CompletableFuture<?> exited = config.stdio()
              ? process.or(() -> findProcess(mark)).map(p -> (CompletableFuture<?>) p.onExit()).orElseGet(CompletableFuture::new)
              : new CompletableFuture<>();
          return new SdkConnection(config, client, mark, exited, tools, listed);
        } catch (TimeoutException stillStarting) {
          if (config.stdio()) {
            if (process.isEmpty()) {
              process = findProcess(mark);
            }
            boolean gone = process.map(p -> !p.isAlive()).orElse(System.nanoTime() - startedAt > TimeUnit.SECONDS.toNanos(3));
            if (gone && !started.isDone()) {
              throw new McpFailure("its process ended before it answered initialize" + lastWords(stderr));
            }
          }
          if (System.nanoTime() > deadline) {
            throw new McpFailure("it did not answer initialize within " + config.startTimeout().toSeconds() + " s"
                + lastWords(stderr));
          }
        } catch (ExecutionException e) {
          throw new McpFailure(startFailure(config, e.getCause()) + lastWords(stderr));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new McpFailure("its start was interrupted");
        }
      }
    } catch (McpFailure | RuntimeException e) {
      stop(client, mark);
      throw e;
    } finally {
      starter.shutdownNow();
    }
  }

  private static McpClientTransport stdio(McpServerConfig config, Environment environment, JacksonMcpJsonMapper mapper,
      CommandMark mark, Deque<String> stderr) throws McpFailure {
    Map<String, String> env = new LinkedHashMap<>();
    for (var entry : config.env().entrySet()) {
      try {
        env.put(entry.getKey(), McpServerConfig.expand(entry.getValue(), environment.variables()));
      } catch (McpFailure e) {
        throw new McpFailure("its env " + entry.getKey() + " cannot be set: " + e.getMessage());
      }
    }
    Path root = environment.projectRoot();
    Path cwd = config.cwd() == null || config.cwd().isBlank() ? root : root.resolve(config.cwd()).normalize();
    if (!Files.isDirectory(cwd)) {
      throw new McpFailure("its cwd " + cwd + " is not a directory");
    }
    findCommand(config.command(), cwd, env.getOrDefault("PATH", System.getenv("PATH")));
    ServerParameters parameters = ServerParameters.builder(config.command()).args(config.args()).env(env).build();
    StdioClientTransport transport = new StdioClientTransport(parameters, mapper) {
      @Override
      protected ProcessBuilder getProcessBuilder() {
        ProcessBuilder builder = new ProcessBuilder().directory(cwd.toFile());
        // as for shell commands: the provider keys stay with Waymark
        builder.environment().keySet().removeAll(environment.withheld());
        builder.environment().keySet().removeIf(name -> name.startsWith("WAYMARK_UTF8_"));
        builder.environment().put(CommandMark.VARIABLE, mark.value());
        return builder;
      }
    };
    transport.setStdErrorHandler(line -> {
      LOG.info("MCP server {} (stderr): {}", config.name(), line);
      synchronized (stderr) {
        stderr.addLast(line);
        while (stderr.size() > STDERR_LINES_KEPT) {
          stderr.removeFirst();
        }
      }
    });
    return transport;
  }

  /** Fails at once, naming it, on a command that cannot be run: otherwise all one sees is a server that never answers. */
  private static void findCommand(String command, Path cwd, String path) throws McpFailure {
    if (command.contains("/")) {
      Path file = cwd.resolve(command);
      if (!Files.isRegularFile(file) || !Files.isExecutable(file)) {
        throw new McpFailure("its command " + file + " is not an executable file");
      }
      return;
    }
    for (String dir : (path == null ? "" : path).split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command)) && !Files.isDirectory(Path.of(dir, command))) {
        return;
      }
    }
    throw new McpFailure("its command \"" + command + "\" is not on the PATH");
  }

  private static McpClientTransport http(McpServerConfig config, Environment environment, JacksonMcpJsonMapper mapper)
      throws McpFailure {
    URI uri;
    try {
      uri = URI.create(config.url().trim());
    } catch (IllegalArgumentException e) {
      throw new McpFailure("its url is not a URL: " + config.url());
    }
    if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new McpFailure("its url is not an http(s) URL: " + config.url());
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (var entry : config.headers().entrySet()) {
      try {
        headers.put(entry.getKey(), McpServerConfig.expand(entry.getValue(), environment.variables()));
      } catch (McpFailure e) {
        throw new McpFailure("its header " + entry.getKey() + " cannot be sent: " + e.getMessage());
      }
    }
    String base = uri.getScheme() + "://" + uri.getRawAuthority();
    String endpoint = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return HttpClientStreamableHttpTransport.builder(base)
        .endpoint(endpoint)
        .jsonMapper(mapper)
        .connectTimeout(config.startTimeout())
        .httpRequestCustomizer((builder, method, target, body, context) -> headers.forEach(builder::setHeader))
        .build();
  }

  private static List<ToolInfo> listTools(McpSyncClient client) {
    List<ToolInfo> tools = new ArrayList<>();
    String cursor = null;
    do {
      McpSchema.ListToolsResult page = cursor == null ? client.listTools() : client.listTools(cursor);
      for (McpSchema.Tool tool : page.tools()) {
        boolean readOnly = tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().readOnlyHint());
        tools.add(new ToolInfo(tool.name(), tool.description(), JSON.valueToTree(tool.inputSchema()), readOnly));
      }
      cursor = page.nextCursor();
    } while (cursor != null && !cursor.isEmpty() && tools.size() < 10_000);
    return tools;
  }

  /**
   * Lists what the server says it has (a server without prompts or resources is not asked). A list
   * that fails is logged and left empty: the server's tools still work.
   */
  private static void listPromptsAndResources(McpSyncClient client, McpServerConfig config, Listed listed) {
    McpSchema.ServerCapabilities capabilities = client.getServerCapabilities();
    if (capabilities != null && capabilities.prompts() != null) {
      try {
        List<McpSchema.Prompt> prompts = new ArrayList<>();
        String cursor = null;
        do {
          McpSchema.ListPromptsResult page = cursor == null ? client.listPrompts() : client.listPrompts(cursor);
          prompts.addAll(page.prompts() == null ? List.of() : page.prompts());
          cursor = page.nextCursor();
        } while (cursor != null && !cursor.isEmpty() && prompts.size() < 10_000);
        listed.prompts(prompts);
      } catch (RuntimeException e) {
        LOG.warn("MCP server {} did not list its prompts: {}", config.name(), describe(e));
      }
    }
    if (capabilities != null && capabilities.resources() != null) {
      try {
        List<McpSchema.Resource> resources = new ArrayList<>();
        String cursor = null;
        do {
          McpSchema.ListResourcesResult page = cursor == null ? client.listResources() : client.listResources(cursor);
          resources.addAll(page.resources() == null ? List.of() : page.resources());
          cursor = page.nextCursor();
        } while (cursor != null && !cursor.isEmpty() && resources.size() < 10_000);
        listed.resources(resources);
      } catch (RuntimeException e) {
        LOG.warn("MCP server {} did not list its resources: {}", config.name(), describe(e));
      }
    }
  }

  /** The server's own process: the one with the mark whose parent is this JVM. */
  private static Optional<ProcessHandle> findProcess(CommandMark mark) {
    if (mark == null || !CommandMark.findable()) {
      return Optional.empty();
    }
    long self = ProcessHandle.current().pid();
    return mark.processes().stream()
        .filter(p -> p.parent().map(parent -> parent.pid() == self).orElse(false))
        .findFirst();
  }

  private static String lastWords(Deque<String> stderr) {
    synchronized (stderr) {
      return stderr.isEmpty() ? "" : "; its last words: " + String.join(" / ", stderr);
    }
  }

  private static String startFailure(McpServerConfig config, Throwable e) {
    Throwable root = McpError.findRootCause(e);
    if (root instanceof java.net.ConnectException || root instanceof java.nio.channels.UnresolvedAddressException
        || root instanceof java.net.http.HttpConnectTimeoutException) {
      return config.url() + " is unreachable (" + describe(root) + ")";
    }
    if (root instanceof TimeoutException) {
      return "it did not answer initialize within " + config.startTimeout().toSeconds() + " s";
    }
    if (root instanceof java.io.IOException && config.stdio()) {
      return "\"" + config.command() + "\" could not be started (" + describe(root) + ")";
    }
    return "it could not be started: " + describe(e);
  }

  private static String describe(Throwable e) {
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
      throw new McpFailure(e.getJsonRpcError() != null ? "the server answered with an error: " + describe(e) : failure(e));
    } catch (RuntimeException e) {
      throw new McpFailure(failure(e));
    }
    List<PromptMessage> messages = new ArrayList<>();
    for (McpSchema.PromptMessage message : result.messages() == null ? List.<McpSchema.PromptMessage>of() : result.messages()) {
      String role = message.role() == McpSchema.Role.ASSISTANT ? "assistant" : "user";
      messages.add(new PromptMessage(role, part(message.content())));
    }
    return messages;
  }

  @Override
  public List<ResourceContent> read(String uri) throws McpFailure {
    McpSchema.ReadResourceResult result;
    try {
      result = client.readResource(new McpSchema.ReadResourceRequest(uri));
    } catch (McpError e) {
      throw new McpFailure(e.getJsonRpcError() != null ? "the server answered with an error: " + describe(e) : failure(e));
    } catch (RuntimeException e) {
      throw new McpFailure(failure(e));
    }
    List<ResourceContent> contents = new ArrayList<>();
    for (McpSchema.ResourceContents part : result.contents() == null ? List.<McpSchema.ResourceContents>of() : result.contents()) {
      if (part instanceof McpSchema.TextResourceContents text) {
        contents.add(new ResourceContent(text.uri(), text.mimeType(), text.text() == null ? "" : text.text(), 0));
      } else if (part instanceof McpSchema.BlobResourceContents blob) {
        contents.add(new ResourceContent(blob.uri(), blob.mimeType(), null, decodedSize(blob.blob())));
      }
    }
    return contents;
  }

  /** One part of a prompt's message in words: text as it is, anything else named. */
  private static String part(McpSchema.Content content) {
    if (content instanceof McpSchema.TextContent t) {
      return t.text() == null ? "" : t.text();
    }
    if (content instanceof McpSchema.EmbeddedResource embedded) {
      McpSchema.ResourceContents contents = embedded.resource();
      if (contents instanceof McpSchema.TextResourceContents t) {
        return "--- resource " + t.uri() + " ---\n" + t.text() + (t.text().endsWith("\n") ? "" : "\n") + "--- end of resource "
            + t.uri() + " ---";
      }
      if (contents instanceof McpSchema.BlobResourceContents b) {
        return "[resource " + b.uri() + ": " + b.mimeType() + ", " + decodedSize(b.blob()) + " bytes, not attached]";
      }
    }
    if (content instanceof McpSchema.ImageContent image) {
      return "[image: " + image.mimeType() + ", " + decodedSize(image.data()) + " bytes, not attached]";
    }
    if (content instanceof McpSchema.AudioContent audio) {
      return "[audio: " + audio.mimeType() + ", " + decodedSize(audio.data()) + " bytes, not attached]";
    }
    if (content instanceof McpSchema.ResourceLink link) {
      return "[resource link: " + link.uri() + "]";
    }
    return content == null ? "" : "[" + content.type() + " content]";
  }

  @Override
  public ToolResult call(String tool, JsonNode arguments) throws McpFailure {
    Map<String, Object> args = JSON.convertValue(arguments, new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {});
    McpSchema.CallToolResult result;
    try {
      result = client.callTool(new McpSchema.CallToolRequest(tool, args));
    } catch (McpError e) {
      if (e.getJsonRpcError() != null) {
        throw new McpFailure("the server answered with an error: " + describe(e));
      }
      throw new McpFailure(failure(e));
    } catch (RuntimeException e) {
      throw new McpFailure(failure(e));
    }
    String text = text(result);
    return Boolean.TRUE.equals(result.isError()) ? ToolResult.error("The tool reported an error:\n" + text)
        : ToolResult.ok(text);
  }

  private String failure(RuntimeException e) {
    Throwable root = McpError.findRootCause(e);
    if (root instanceof TimeoutException) {
      return "no answer within " + config.callTimeout().toSeconds() + " s";
    }
    if (exited.isDone()) {
      return "the server's process ended during the call";
    }
    return describe(e);
  }

  /** What a result holds, in words a model reads: texts, then images and other binary parts by type and size, then structured content. */
  static String text(McpSchema.CallToolResult result) {
    StringBuilder out = new StringBuilder();
    boolean anyText = false;
    for (McpSchema.Content part : result.content() == null ? List.<McpSchema.Content>of() : result.content()) {
      if (out.length() > 0) {
        out.append('\n');
      }
      if (part instanceof McpSchema.TextContent t) {
        out.append(t.text());
        anyText = true;
      } else if (part instanceof McpSchema.ImageContent image) {
        out.append("[image: ").append(image.mimeType()).append(", ").append(decodedSize(image.data())).append(" bytes]");
      } else if (part instanceof McpSchema.AudioContent audio) {
        out.append("[audio: ").append(audio.mimeType()).append(", ").append(decodedSize(audio.data())).append(" bytes]");
      } else if (part instanceof McpSchema.ResourceLink link) {
        out.append("[resource link: ").append(link.uri());
        if (link.name() != null) {
          out.append(" \"").append(link.name()).append('"');
        }
        if (link.mimeType() != null) {
          out.append(", ").append(link.mimeType());
        }
        if (link.size() != null) {
          out.append(", ").append(link.size()).append(" bytes");
        }
        out.append(']');
        if (link.description() != null && !link.description().isBlank()) {
          out.append(' ').append(link.description());
        }
      } else if (part instanceof McpSchema.EmbeddedResource embedded) {
        McpSchema.ResourceContents contents = embedded.resource();
        if (contents instanceof McpSchema.TextResourceContents t) {
          out.append("[resource ").append(t.uri()).append("]\n").append(t.text());
          anyText = true;
        } else if (contents instanceof McpSchema.BlobResourceContents b) {
          out.append("[resource ").append(b.uri()).append(": ").append(b.mimeType()).append(", ")
              .append(decodedSize(b.blob())).append(" bytes]");
        }
      } else if (part != null) {
        out.append("[").append(part.type()).append(" content]");
      }
    }
    if (result.structuredContent() != null) {
      try {
        String structured = JSON.writeValueAsString(result.structuredContent());
        if (!anyText || !saidAlready(JSON.valueToTree(result.structuredContent()), out.toString())) {
          out.append(out.length() > 0 ? "\n" : "").append("Structured content: ").append(structured);
        }
      } catch (java.io.IOException e) {
        out.append("[structured content that could not be written]");
      }
    }
    return out.toString();
  }

  /**
   * Whether the text parts already say what the structured content holds: as its JSON, or every
   * text value of it word for word (servers are asked to send both, and often send the same thing twice).
   */
  private static boolean saidAlready(JsonNode structured, String text) {
    String compact = structured.toString();
    if (text.contains(compact)) {
      return true;
    }
    // only text values: a number such as 42 turns up in any text
    List<JsonNode> values = new ArrayList<>();
    structured.forEach(values::add);
    return !values.isEmpty() && values.stream().allMatch(v -> v.isTextual() && !v.asText().isBlank() && text.contains(v.asText()));
  }

  private static long decodedSize(String base64) {
    if (base64 == null) {
      return 0;
    }
    try {
      return Base64.getDecoder().decode(base64.replaceAll("\\s", "")).length;
    } catch (IllegalArgumentException e) {
      return base64.length() * 3L / 4;
    }
  }

  @Override
  public CompletableFuture<?> exited() {
    return exited;
  }

  @Override
  public void close() {
    stop(client, mark);
  }

  private static void stop(McpSyncClient client, CommandMark mark) {
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
