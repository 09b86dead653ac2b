package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.tool.McpTool;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolResult;
import dev.waymark.core.tool.ToolSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * The MCP servers of one process, shared by all its tabs. Each starts in the background as soon as
 * this is made (the interface draws meanwhile); the first model request waits for those still
 * starting, up to their start timeout. A server whose process dies is started again at its next
 * call, once; after a second crash it stays down and {@link #status()} says why. {@link #close()}
 * (and, should the process end without it, a shutdown hook) stops every server and what it started.
 */
public final class McpServers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(McpServers.class);
  private static final String SDK_FACTORY = "dev.waymark.core.mcp.SdkConnection$Factory";
  private static final long POLL_MILLIS = 100;
  /** How long past its timeout a call is waited for before it is given up. */
  private static final long CALL_GRACE_MILLIS = 2_000;
  private static final long STOP_WAIT_MILLIS = 2_000;

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
  public record Options(java.nio.file.Path projectRoot, Map<String, String> environment, Set<String> allowedTools,
      ToolSettings toolSettings) {
    public Options {
      environment = Map.copyOf(environment);
      allowedTools = Set.copyOf(allowedTools);
    }
  }

  private final Map<String, Server> servers = new LinkedHashMap<>();
  /** What went wrong so far, for a listener that comes late (the interface is made after the servers start). */
  private final List<String> problems = new ArrayList<>();
  /** The renamings the chat was told of already: {@link #tools()} runs for every model request. */
  private final Set<String> toldClashes = new HashSet<>();
  private java.util.function.Consumer<String> problemListener;
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
      servers.put(config.name(), new Server(config, environment, options, factory));
    }
    shutdownHook = configs.isEmpty() ? null : new Thread(this::stopAll, "waymark-mcp-stop");
    if (shutdownHook != null) {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    servers.values().forEach(server -> calls.submit(server::start));
  }

  /** No servers: loads nothing of the MCP SDK. */
  public static McpServers none() {
    return new McpServers(List.of(), new Options(java.nio.file.Path.of("."), Map.of(), Set.of(), ToolSettings.DEFAULTS),
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
        throw new McpFailure("the MCP client library cannot be loaded (" + e + ")");
      };
    }
  }

  /**
   * Where to say that a server did not start or crashed (once each time): the problems so far at
   * once, later ones as they happen, on the thread that saw them.
   */
  public void onProblem(java.util.function.Consumer<String> listener) {
    List<String> earlier;
    synchronized (problems) {
      problemListener = listener;
      earlier = List.copyOf(problems);
    }
    earlier.forEach(message -> listener.accept(message + " (/mcp or `waymark mcp list` shows the servers)"));
  }

  private void problem(String message) {
    java.util.function.Consumer<String> listener;
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
    for (Server server : servers.values()) {
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

  private Server server(String name) throws McpFailure {
    Server server = servers.get(name);
    if (server == null) {
      throw new McpFailure("there is no MCP server " + name + (servers.isEmpty() ? " (none is configured)"
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
    return servers.values().stream().map(Server::status).toList();
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
      lines.add(server.name() + "  " + server.state().name().toLowerCase(java.util.Locale.ROOT) + "  " + server.where());
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
    Server server = servers.get(name);
    if (server != null) {
      server.awaitTools();
    }
  }

  /** Waits until no server is starting any more (for {@code waymark mcp list}). */
  public List<Status> awaitStatus() {
    servers.values().forEach(Server::awaitTools);
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
    servers.values().forEach(Server::stop);
  }

  /** One configured server: its connection, tools, state and last error. */
  private final class Server implements McpTool.Server {
    private final McpServerConfig config;
    private final McpConnection.Environment environment;
    private final Options options;
    private final McpConnection.Factory factory;
    private final CompletableFuture<Void> firstStart = new CompletableFuture<>();
    private final Object restarting = new Object();
    private McpConnection connection;
    /** The mark of the processes of a start under way, so that stopping Waymark stops them too. */
    private dev.waymark.core.checkpoint.shell.CommandMark starting;
    private State state = State.STARTING;
    private List<Tool> tools = List.of();
    private String lastError;
    private int crashes;

    Server(McpServerConfig config, McpConnection.Environment environment, Options options, McpConnection.Factory factory) {
      this.config = config;
      this.environment = environment;
      this.options = options;
      this.factory = factory;
    }

    @Override
    public String name() {
      return config.name();
    }

    void start() {
      try {
        connect();
      } finally {
        firstStart.complete(null);
      }
    }

    /** Connects (the first time, or again after a crash); the state says how it went. */
    private void connect() {
      dev.waymark.core.checkpoint.shell.CommandMark mark = dev.waymark.core.checkpoint.shell.CommandMark.random();
      synchronized (this) {
        if (state == State.STOPPED) {
          return;
        }
        state = State.STARTING;
        starting = mark;
      }
      McpConnection started;
      try {
        started = factory.connect(config, environment, mark);
      } catch (McpFailure e) {
        failed("MCP server " + config.name() + " did not start: " + e.getMessage());
        return;
      } catch (RuntimeException | LinkageError e) {
        LOG.error("MCP server {} did not start", config.name(), e);
        failed("MCP server " + config.name() + " did not start: " + e);
        return;
      }
      List<Tool> offered = new ArrayList<>();
      for (McpConnection.ToolInfo info : started.tools()) {
        offered.add(new McpTool(this, info.name(), info.description(), info.inputSchema(), allowed(info.name()),
            options.toolSettings()).readOnly(info.readOnly()));
      }
      synchronized (this) {
        starting = null;
        if (state == State.STOPPED) {
          started.close();
          return;
        }
        connection = started;
        tools = List.copyOf(offered);
        state = State.READY;
      }
      LOG.info("MCP server {} started with {} tools, {} prompts and {} resources", config.name(), offered.size(),
          started.prompts().size(), started.resources().size());
      started.exited().thenRun(() -> crashed(started));
      started.onListsChanged(McpServers.this::listsChanged);
      listsChanged();
    }

    private boolean allowed(String tool) {
      // the server's own name for the tool: the name offered to the model may be one two tools sanitize to
      return options.allowedTools().contains(config.name())
          || options.allowedTools().contains(config.name() + "__" + tool);
    }

    private void failed(String message) {
      LOG.warn(message);
      synchronized (this) {
        lastError = message;
        starting = null; // what it started was stopped with the failed start
        if (state == State.STOPPED) {
          return;
        }
        state = State.FAILED;
        tools = List.of();
      }
      problem(message);
      listsChanged();
    }

    /** The process of {@code which} ended on its own: counted, and started again at the next call if it was the first time. */
    private void crashed(McpConnection which) {
      synchronized (this) {
        if (connection != which || state == State.STOPPED) {
          return;
        }
        connection = null;
        crashes++;
        lastError = "MCP server " + config.name() + " stopped unexpectedly"
            + (crashes == 1 ? "; it is started again at its next call" : " again; it is not restarted (restart Waymark to try again)");
        state = crashes == 1 ? State.STARTING : State.FAILED;
        if (crashes > 1) {
          tools = List.of();
        }
      }
      LOG.warn(lastError);
      problem(lastError);
      listsChanged();
      which.close(); // whatever it left running
    }

    List<Tool> awaitTools() {
      try {
        firstStart.get(config.startTimeout().toMillis() + CALL_GRACE_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        LOG.debug("MCP server {} is still starting", config.name());
      }
      synchronized (this) {
        return tools;
      }
    }

    synchronized List<McpPrompt> prompts() {
      return connection == null ? List.of() : connection.prompts();
    }

    synchronized List<McpResource> resources() {
      return connection == null ? List.of() : connection.resources();
    }

    /**
     * Asks the server something besides a tool call (a prompt, a resource): waits for its first
     * start, starts it again after a crash as a call does, and gives up past the call timeout.
     */
    <T> T ask(String what, Request<T> request) throws McpFailure {
      awaitTools();
      McpConnection live;
      synchronized (restarting) { // as for a call: two tabs asking at once start it once
        boolean needed;
        synchronized (this) {
          if (state == State.STOPPED) {
            throw new McpFailure("MCP server " + config.name() + " was stopped");
          }
          needed = connection == null && state == State.STARTING && crashes > 0;
        }
        if (needed) {
          connect(); // the restart after a crash
        }
        synchronized (this) {
          live = connection;
          if (live == null) {
            throw new McpFailure("MCP server " + config.name() + " is not running"
                + (lastError == null ? " (it is still starting)" : ": " + lastError));
          }
        }
      }
      McpConnection used = live;
      Future<T> answer = calls.submit(() -> request.ask(used));
      try {
        return answer.get(config.callTimeout().toMillis() + CALL_GRACE_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        answer.cancel(true);
        throw new McpFailure("MCP server " + config.name() + " did not answer within " + config.callTimeout().toSeconds()
            + " s (" + what + ")");
      } catch (ExecutionException e) {
        if (used.exited().isDone()) {
          throw new McpFailure("MCP server " + config.name() + " stopped before it answered (" + what + ")");
        }
        Throwable cause = e.getCause();
        String message = cause instanceof McpFailure ? cause.getMessage() : String.valueOf(cause);
        synchronized (this) {
          lastError = "MCP server " + config.name() + ", " + what + ": " + message;
        }
        throw new McpFailure("MCP server " + config.name() + ", " + what + ": " + message);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        answer.cancel(true);
        throw new McpFailure("the request to MCP server " + config.name() + " was abandoned");
      }
    }

    synchronized Status status() {
      List<String> names = tools.stream().map(t -> ((McpTool) t).tool()).toList();
      List<String> prompts = connection == null ? List.of() : connection.prompts().stream().map(McpPrompt::command).toList();
      int resources = connection == null ? 0 : connection.resources().size();
      return new Status(config.name(), config.where(), state, names, prompts, resources, Optional.ofNullable(lastError));
    }

    @Override
    public ToolResult call(String tool, JsonNode arguments, Cancellation cancellation) {
      McpConnection live;
      synchronized (this) {
        live = connection;
        if (live == null && state == State.FAILED) {
          return ToolResult.error("MCP server " + config.name() + " is not running: " + lastError);
        }
        if (state == State.STOPPED) {
          return ToolResult.error("MCP server " + config.name() + " was stopped.");
        }
      }
      if (live == null) {
        synchronized (restarting) { // two tabs calling at once start it once
          boolean needed;
          synchronized (this) {
            needed = connection == null && state == State.STARTING;
          }
          if (needed) {
            connect(); // the restart after a crash
          }
        }
        synchronized (this) {
          live = connection;
          if (live == null) {
            return ToolResult.error("MCP server " + config.name() + " is not running: " + lastError);
          }
        }
      }
      McpConnection used = live;
      Future<ToolResult> answer = calls.submit(() -> used.call(tool, arguments));
      long deadline = System.nanoTime() + config.callTimeout().toNanos();
      while (true) {
        try {
          return answer.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException notYet) {
          if (cancellation.isCancelled()) {
            answer.cancel(true);
            return ToolResult.error("Cancelled: the call to MCP server " + config.name() + " was abandoned (the server "
                + "may still finish it).");
          }
          if (used.exited().isDone()) {
            answer.cancel(true);
            return crashedDuringCall();
          }
          if (System.nanoTime() > deadline) {
            answer.cancel(true);
            return timedOut();
          }
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (used.exited().isDone()) {
            return crashedDuringCall();
          }
          String message = cause instanceof McpFailure ? cause.getMessage() : String.valueOf(cause);
          if (message.startsWith("no answer within")) {
            return timedOut();
          }
          synchronized (this) {
            lastError = "MCP server " + config.name() + ", tool " + tool + ": " + message;
          }
          return ToolResult.error("MCP server " + config.name() + ", tool " + tool + " failed: " + message);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          answer.cancel(true);
          return ToolResult.error("Cancelled: the call to MCP server " + config.name() + " was abandoned.");
        }
      }
    }

    private ToolResult timedOut() {
      String message = "MCP server " + config.name() + " did not answer within " + config.callTimeout().toSeconds()
          + " s; the call was given up (the server may still finish it).";
      synchronized (this) {
        lastError = message;
      }
      return ToolResult.error(message);
    }

    private ToolResult crashedDuringCall() {
      synchronized (this) {
        int soFar = crashes;
        return ToolResult.error("MCP server " + config.name() + " stopped during the call, which did not finish"
            + (soFar <= 1 ? "; it is started again at the next call." : "; it crashed twice and is not restarted."));
      }
    }

    void stop() {
      McpConnection open;
      dev.waymark.core.checkpoint.shell.CommandMark half;
      synchronized (this) {
        open = connection;
        half = starting;
        connection = null;
        starting = null;
        state = State.STOPPED;
      }
      if (open != null) {
        open.close();
      }
      if (half != null && config.stdio() && dev.waymark.core.checkpoint.shell.CommandMark.findable()) {
        half.stopAll(STOP_WAIT_MILLIS); // a server still starting, which nobody else would stop
      }
    }
  }

  /** One request to a live connection. */
  @FunctionalInterface
  private interface Request<T> {
    T ask(McpConnection connection) throws McpFailure;
  }

  /** For tests: waits until {@code name} has left its first start. */
  void awaitStarted(String name, Duration atMost) throws Exception {
    servers.get(name).firstStart.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
  }
}
