package dev.waymark.core.mcp;

import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.tool.McpTool;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP servers of one process, shared by all its tabs. Each starts in the background as soon as
 * this is made (the interface draws meanwhile); the first model request waits for those still
 * starting, up to their start timeout. A server whose process dies is started again at its next
 * call, once; after a second crash it stays down and {@link #status()} says why. {@link #close()}
 * (and, should the process end without it, a shutdown hook) stops every server and what it started.
 */
public final class McpServers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(McpServers.class);
  private static final String SDK_FACTORY = "dev.waymark.core.mcp.SdkConnection$Factory";

  /** What a server is doing now. */
  public enum State { STARTING, READY, FAILED, STOPPED }

  /** One server as {@code /mcp} and {@code waymark mcp list} show it. */
  public record Status(String name, String where, State state, List<String> tools, List<String> prompts, int resources,
      Optional<String> lastError) {}

  /**
   * @param environment the variables {@code ${NAME}} in env and headers may name
   * @param allowedTools {@code SERVER__tool} (the server's own name of the tool) or {@code SERVER} names
   *     whose calls run without asking
   */
  public record Options(Path projectRoot, Map<String, String> environment, Set<String> allowedTools,
      ToolSettings toolSettings) {
    public Options {
      environment = Map.copyOf(environment);
      allowedTools = Set.copyOf(allowedTools);
    }
  }

  private final Map<String, ManagedServer> servers = new LinkedHashMap<>();
  /** What went wrong so far, for a listener that comes late (the interface is made after the servers start). */
  private final List<String> problems = new ArrayList<>();
  /** The renamings the chat was told of already: {@link #tools()} runs for every model request. */
  private final Set<String> toldClashes = new HashSet<>();
  private Consumer<String> problemListener;
  private volatile Runnable listsListener = () -> {};
  private final ExecutorService calls;
  private final Thread shutdownHook;

  private McpServers(List<McpServerConfig> configs, Options options, McpConnection.Factory factory) {
    calls = configs.isEmpty() ? null : Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "waymark-mcp");
      t.setDaemon(true);
      return t;
    });
    McpConnection.Environment environment = new McpConnection.Environment(options.projectRoot(), options.environment(),
        options.toolSettings().withheldVariables());
    for (McpServerConfig config : configs) {
      servers.put(config.name(), new ManagedServer(config, environment, options, factory, calls, this::problem,
          this::listsChanged));
    }
    shutdownHook = configs.isEmpty() ? null : new Thread(this::stopAll, "waymark-mcp-stop");
    if (shutdownHook != null) {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    servers.values().forEach(server -> calls.submit(server::start));
  }

  /** No servers: loads nothing of the MCP SDK. */
  public static McpServers none() {
    return new McpServers(List.of(), new Options(Path.of("."), Map.of(), Set.of(), ToolSettings.DEFAULTS),
        null);
  }

  /** Starts {@code configs} in the background, through the MCP SDK (loaded only now, and only if there is a server). */
  public static McpServers start(List<McpServerConfig> configs, Options options) {
    if (configs.isEmpty()) {
      return none();
    }
    return new McpServers(configs, options, sdk());
  }

  /** For tests: servers reached through {@code factory}. */
  static McpServers start(List<McpServerConfig> configs, Options options, McpConnection.Factory factory) {
    return new McpServers(configs, options, factory);
  }

  private static McpConnection.Factory sdk() {
    try {
      return (McpConnection.Factory) Class.forName(SDK_FACTORY).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      LOG.error("the MCP SDK cannot be loaded", e);
      return (config, environment, mark) -> {
        throw new McpFailure(ErrorKind.UNSUPPORTED, "the MCP client library cannot be loaded (" + e + ")");
      };
    }
  }

  /**
   * Where to say that a server did not start or crashed (once each time): the problems so far at
   * once, later ones as they happen, on the thread that saw them.
   */
  public void onProblem(Consumer<String> listener) {
    List<String> earlier;
    synchronized (problems) {
      problemListener = listener;
      earlier = List.copyOf(problems);
    }
    earlier.forEach(message -> listener.accept(message + " (/mcp or `waymark mcp list` shows the servers)"));
  }

  private void problem(String message) {
    Consumer<String> listener;
    synchronized (problems) {
      problems.add(message);
      listener = problemListener;
    }
    if (listener != null) {
      listener.accept(message + " (/mcp or `waymark mcp list` shows the servers)");
    }
  }

  public boolean isEmpty() {
    return servers.isEmpty();
  }

  /**
   * The tools of every server that started, each under a name no other has (the chat is told of a
   * tool renamed for that, once); waits for servers still starting, each at most its start timeout.
   */
  public List<Tool> tools() {
    List<McpTool> tools = new ArrayList<>();
    for (ManagedServer server : servers.values()) {
      server.awaitTools().forEach(tool -> tools.add((McpTool) tool));
    }
    McpToolNames.Named named = McpToolNames.assign(tools);
    for (McpToolNames.Clash clash : named.clashes()) {
      String message = clash.message();
      boolean first;
      synchronized (toldClashes) {
        first = toldClashes.add(message);
      }
      if (first) {
        problem(message);
      }
    }
    return List.copyOf(named.tools());
  }

  /** The prompts of the servers that are ready now, without waiting: {@code /SERVER:NAME} commands. */
  public List<McpPrompt> prompts() {
    List<McpPrompt> prompts = new ArrayList<>();
    servers.values().forEach(server -> prompts.addAll(server.prompts()));
    return prompts;
  }

  /** The resources of the servers that are ready now, without waiting: what {@code @SERVER:URI} attaches. */
  public List<McpResource> resources() {
    List<McpResource> resources = new ArrayList<>();
    servers.values().forEach(server -> resources.addAll(server.resources()));
    return resources;
  }

  /** Whether a server of this name is configured (whatever its state). */
  public boolean has(String server) {
    return servers.containsKey(server);
  }

  /**
   * Called, on whichever thread saw it, when {@link #prompts()} or {@link #resources()} may have
   * changed: a server became ready or went down, or said its lists changed.
   */
  public void onListsChanged(Runnable listener) {
    listsListener = listener;
  }

  /**
   * The messages of {@code server}'s prompt {@code name} filled with {@code arguments}; waits for a
   * server still starting, and at most the call timeout for the answer.
   *
   * @throws McpFailure with a message that names the server and says what went wrong
   */
  List<McpConnection.PromptMessage> prompt(String server, String name, Map<String, String> arguments)
      throws McpFailure {
    return server(server).ask("prompt " + name, connection -> connection.prompt(name, arguments));
  }

  /** The contents of {@code server}'s resource {@code uri}; waits as {@link #prompt} does. */
  List<McpConnection.ResourceContent> read(String server, String uri) throws McpFailure {
    return server(server).ask("resource " + uri, connection -> connection.read(uri));
  }

  private ManagedServer server(String name) throws McpFailure {
    ManagedServer server = servers.get(name);
    if (server == null) {
      throw new McpFailure(ErrorKind.NOT_FOUND, "there is no MCP server " + name + (servers.isEmpty() ? " (none is configured)"
          : " (configured: " + String.join(", ", servers.keySet()) + ")"));
    }
    return server;
  }

  private void listsChanged() {
    try {
      listsListener.run();
    } catch (RuntimeException e) {
      LOG.warn("a listener of MCP prompts and resources failed", e);
    }
  }

  /** Each server's state now, without waiting. */
  public List<Status> status() {
    return servers.values().stream().map(ManagedServer::status).toList();
  }

  /**
   * The servers in lines a person reads ({@code /mcp}, {@code waymark mcp list}): each with its
   * state and how it is reached, then its tools and its last error.
   */
  public static List<String> describe(List<Status> servers) {
    if (servers.isEmpty()) {
      return List.of("No MCP servers are configured. Add \"mcpServers\" to your settings.json (see the README, MCP servers).");
    }
    List<String> lines = new ArrayList<>();
    for (Status server : servers) {
      lines.add(server.name() + "  " + server.state().name().toLowerCase(Locale.ROOT) + "  " + server.where());
      if (!server.tools().isEmpty()) {
        lines.add("  tools (" + server.tools().size() + "): " + String.join(", ", server.tools()));
      } else if (server.state() == State.READY) {
        lines.add("  no tools");
      }
      if (!server.prompts().isEmpty()) {
        lines.add("  prompts (" + server.prompts().size() + "): " + String.join(", ", server.prompts()));
      }
      if (server.resources() > 0) {
        lines.add("  resources: " + server.resources() + " (attach one with @" + server.name() + ":URI; @ lists them)");
      }
      server.lastError().ifPresent(error -> lines.add("  last error: " + error));
    }
    return lines;
  }

  /** Waits until {@code name} has left its first start (at most its start timeout); nothing for a name not configured. */
  public void awaitStart(String name) {
    ManagedServer server = servers.get(name);
    if (server != null) {
      server.awaitTools();
    }
  }

  /** Waits until no server is starting any more (for {@code waymark mcp list}). */
  public List<Status> awaitStatus() {
    servers.values().forEach(ManagedServer::awaitTools);
    return status();
  }

  @Override
  public void close() {
    stopAll();
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs, or ran, anyway
      }
    }
    if (calls != null) {
      calls.shutdownNow();
    }
  }

  private void stopAll() {
    servers.values().forEach(ManagedServer::stop);
  }

  /** For tests: waits until {@code name} has left its first start. */
  void awaitStarted(String name, Duration atMost) throws Exception {
    servers.get(name).awaitFirstStart(atMost);
  }
}
