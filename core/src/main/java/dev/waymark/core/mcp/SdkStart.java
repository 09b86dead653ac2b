package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.mcp.McpConnection.Environment;
import dev.waymark.core.mcp.McpConnection.ToolInfo;
import dev.waymark.core.protocol.ErrorKind;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a server through the SDK: its transport (a stdio process, checked for a command that can
 * run, or a streamable HTTP endpoint), its {@code initialize} within the start timeout while
 * watching that its process still lives, and the first listing of its tools, prompts and
 * resources. What went wrong is said in words that name the cause (and a stdio server's last
 * stderr lines).
 */
final class SdkStart {
  private static final Logger LOG = LoggerFactory.getLogger(SdkStart.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int STDERR_LINES_KEPT = 5;

  private SdkStart() {}

  /** Starts the server and completes its {@code initialize}; what it started is stopped again when that fails. */
  static McpConnection connect(McpServerConfig config, Environment environment, CommandMark processMark) throws McpFailure {
    JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    CommandMark mark = config.stdio() ? processMark : null;
    Deque<String> stderr = new ArrayDeque<>();
    McpClientTransport transport = config.stdio() ? stdio(config, environment, mapper, mark, stderr)
        : http(config, environment, mapper);
    SdkConnection.Listed listed = new SdkConnection.Listed(config.name());
    McpSyncClient client = McpClient.sync(transport)
        .clientInfo(new McpSchema.Implementation("waymark", "1"))
        .promptsChangeConsumer(listed::prompts)
        .resourcesChangeConsumer(listed::resources)
        // a call's own timeout is kept by McpServers; this one only bounds what no call waits for
        .requestTimeout(config.callTimeout().compareTo(config.startTimeout()) > 0 ? config.callTimeout() : config.startTimeout())
        .initializationTimeout(config.startTimeout())
        .build();
    ExecutorService starter = Executors.newSingleThreadExecutor(r -> {
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
              throw new McpFailure(ErrorKind.TOOL_FAILED, "its process ended before it answered initialize" + lastWords(stderr));
            }
          }
          if (System.nanoTime() > deadline) {
            throw new McpFailure(ErrorKind.TOOL_FAILED, "it did not answer initialize within " + config.startTimeout().toSeconds() + " s"
                + lastWords(stderr));
          }
        } catch (ExecutionException e) {
          throw new McpFailure(ErrorKind.TOOL_FAILED, startFailure(config, e.getCause()) + lastWords(stderr));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new McpFailure(ErrorKind.INTERRUPTED, "its start was interrupted");
        }
      }
    } catch (McpFailure | RuntimeException e) {
      SdkConnection.stop(client, mark);
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
        throw new McpFailure(e.kind(), "its env " + entry.getKey() + " cannot be set: " + e.getMessage());
      }
    }
    Path root = environment.projectRoot();
    Path cwd = config.cwd() == null || config.cwd().isBlank() ? root : root.resolve(config.cwd()).normalize();
    if (!Files.isDirectory(cwd)) {
      throw new McpFailure(ErrorKind.REFUSED, "its cwd " + cwd + " is not a directory");
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
        throw new McpFailure(ErrorKind.REFUSED, "its command " + file + " is not an executable file");
      }
      return;
    }
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command)) && !Files.isDirectory(Path.of(dir, command))) {
        return;
      }
    }
    throw new McpFailure(ErrorKind.REFUSED, "its command \"" + command + "\" is not on the PATH");
  }

  private static McpClientTransport http(McpServerConfig config, Environment environment, JacksonMcpJsonMapper mapper)
      throws McpFailure {
    URI uri;
    try {
      uri = URI.create(config.url().trim());
    } catch (IllegalArgumentException e) {
      throw new McpFailure(ErrorKind.REFUSED, "its url is not a URL: " + config.url());
    }
    if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new McpFailure(ErrorKind.REFUSED, "its url is not an http(s) URL: " + config.url());
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (var entry : config.headers().entrySet()) {
      try {
        headers.put(entry.getKey(), McpServerConfig.expand(entry.getValue(), environment.variables()));
      } catch (McpFailure e) {
        throw new McpFailure(e.kind(), "its header " + entry.getKey() + " cannot be sent: " + e.getMessage());
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
  private static void listPromptsAndResources(McpSyncClient client, McpServerConfig config,
      SdkConnection.Listed listed) {
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
        LOG.warn("MCP server {} did not list its prompts: {}", config.name(), SdkConnection.describe(e));
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
        LOG.warn("MCP server {} did not list its resources: {}", config.name(), SdkConnection.describe(e));
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
    if (root instanceof ConnectException || root instanceof UnresolvedAddressException
        || root instanceof HttpConnectTimeoutException) {
      return config.url() + " is unreachable (" + SdkConnection.describe(root) + ")";
    }
    if (root instanceof TimeoutException) {
      return "it did not answer initialize within " + config.startTimeout().toSeconds() + " s";
    }
    if (root instanceof IOException && config.stdio()) {
      return "\"" + config.command() + "\" could not be started (" + SdkConnection.describe(root) + ")";
    }
    return "it could not be started: " + SdkConnection.describe(e);
  }
}
