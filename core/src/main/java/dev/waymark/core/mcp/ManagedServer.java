package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.mcp.McpServers.Options;
import dev.waymark.core.mcp.McpServers.State;
import dev.waymark.core.mcp.McpServers.Status;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.tool.McpTool;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One configured server of {@link McpServers}: its connection, tools, state and last error; its
 * start, its one restart after a crash, and the calls and requests made to it, each given up past
 * its timeout. Its state is kept under its own monitor; what went wrong is told to the servers'
 * listeners through {@code problems}.
 */
final class ManagedServer implements McpTool.Server {
  private static final Logger LOG = LoggerFactory.getLogger(ManagedServer.class);
  private static final long POLL_MILLIS = 100;
  /** How long past its timeout a call is waited for before it is given up. */
  private static final long CALL_GRACE_MILLIS = 2_000;
  private static final long STOP_WAIT_MILLIS = 2_000;

  private final McpServerConfig config;
  private final McpConnection.Environment environment;
  private final Options options;
  private final McpConnection.Factory factory;
  /** Where calls and requests run, so that a hung one can be given up (shared by the servers of a process). */
  private final ExecutorService calls;
  private final Consumer<String> problems;
  private final Runnable listsChanged;
  private final CompletableFuture<Void> firstStart = new CompletableFuture<>();
  private final Object restarting = new Object();
  private McpConnection connection;
  /** The mark of the processes of a start under way, so that stopping Waymark stops them too. */
  private CommandMark starting;
  private State state = State.STARTING;
  private List<Tool> tools = List.of();
  private String lastError;
  private int crashes;

  /**
   * @param problems told, once each time, that the server did not start or crashed
   * @param listsChanged told that its prompts or resources may have changed
   */
  ManagedServer(McpServerConfig config, McpConnection.Environment environment, Options options,
      McpConnection.Factory factory, ExecutorService calls, Consumer<String> problems, Runnable listsChanged) {
    this.config = config;
    this.environment = environment;
    this.options = options;
    this.factory = factory;
    this.calls = calls;
    this.problems = problems;
    this.listsChanged = listsChanged;
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
    CommandMark mark = CommandMark.random();
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
    started.onListsChanged(listsChanged);
    listsChanged.run();
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
    problems.accept(message);
    listsChanged.run();
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
    problems.accept(lastError);
    listsChanged.run();
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
          throw new McpFailure(ErrorKind.INTERRUPTED, "MCP server " + config.name() + " was stopped");
        }
        needed = connection == null && state == State.STARTING && crashes > 0;
      }
      if (needed) {
        connect(); // the restart after a crash
      }
      synchronized (this) {
        live = connection;
        if (live == null) {
          throw new McpFailure(ErrorKind.TOOL_FAILED, "MCP server " + config.name() + " is not running"
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
      throw new McpFailure(ErrorKind.TIMED_OUT, "MCP server " + config.name() + " did not answer within " + config.callTimeout().toSeconds()
          + " s (" + what + ")");
    } catch (ExecutionException e) {
      if (used.exited().isDone()) {
        throw new McpFailure(ErrorKind.TOOL_FAILED, "MCP server " + config.name() + " stopped before it answered (" + what + ")");
      }
      Throwable cause = e.getCause();
      String message = cause instanceof McpFailure ? cause.getMessage() : String.valueOf(cause);
      synchronized (this) {
        lastError = "MCP server " + config.name() + ", " + what + ": " + message;
      }
      throw new McpFailure(cause instanceof McpFailure failure ? failure.kind() : ErrorKind.TOOL_FAILED,
          "MCP server " + config.name() + ", " + what + ": " + message);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      answer.cancel(true);
      throw new McpFailure(ErrorKind.INTERRUPTED, "the request to MCP server " + config.name() + " was abandoned");
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
        return ToolResult.error(ErrorKind.TOOL_FAILED, "MCP server " + config.name() + " is not running: " + lastError);
      }
      if (state == State.STOPPED) {
        return ToolResult.error(ErrorKind.INTERRUPTED, "MCP server " + config.name() + " was stopped.");
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
          return ToolResult.error(ErrorKind.TOOL_FAILED, "MCP server " + config.name() + " is not running: " + lastError);
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
          return ToolResult.error(ErrorKind.INTERRUPTED, "Cancelled: the call to MCP server " + config.name() + " was abandoned (the server "
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
        if (cause instanceof McpFailure failure && failure.kind() == ErrorKind.TIMED_OUT) {
          return timedOut();
        }
        synchronized (this) {
          lastError = "MCP server " + config.name() + ", tool " + tool + ": " + message;
        }
        return ToolResult.error(ErrorKind.TOOL_FAILED, "MCP server " + config.name() + ", tool " + tool + " failed: " + message);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        answer.cancel(true);
        return ToolResult.error(ErrorKind.INTERRUPTED, "Cancelled: the call to MCP server " + config.name() + " was abandoned.");
      }
    }
  }

  private ToolResult timedOut() {
    String message = "MCP server " + config.name() + " did not answer within " + config.callTimeout().toSeconds()
        + " s; the call was given up (the server may still finish it).";
    synchronized (this) {
      lastError = message;
    }
    return ToolResult.error(ErrorKind.TIMED_OUT, message);
  }

  private ToolResult crashedDuringCall() {
    synchronized (this) {
      int soFar = crashes;
      return ToolResult.error(ErrorKind.TOOL_FAILED, "MCP server " + config.name() + " stopped during the call, which did not finish"
          + (soFar <= 1 ? "; it is started again at the next call." : "; it crashed twice and is not restarted."));
    }
  }

  void stop() {
    McpConnection open;
    CommandMark half;
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
    if (half != null && config.stdio() && CommandMark.findable()) {
      half.stopAll(STOP_WAIT_MILLIS); // a server still starting, which nobody else would stop
    }
  }

  /** One request to a live connection. */
  @FunctionalInterface
  interface Request<T> {
    T ask(McpConnection connection) throws McpFailure;
  }

  /** For tests: waits until the server has left its first start. */
  void awaitFirstStart(Duration atMost) throws Exception {
    firstStart.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
  }
}
