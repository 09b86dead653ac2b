package dev.waymark.app;

import dev.waymark.core.mcp.McpServers;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code waymark mcp list}: starts the configured MCP servers, shows each one's state, tools, prompts, resources and last error, and stops them. */
@Command(
    name = "mcp",
    mixinStandardHelpOptions = true,
    description = {"The MCP servers of a project: its settings' \"mcpServers\" (the project's own only once it is trusted)."},
    subcommands = {McpCommand.ListServers.class})
final class McpCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 0;
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = {"Start each configured MCP server, list its state, tools, prompts, resources and last error, then stop it. "
          + "Exits with 1 when a server did not start."})
  static final class ListServers implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.ParentCommand McpCommand parent;

    @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
    Path directory = Path.of("");

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Path project = directory.toAbsolutePath().normalize();
      Settings.Loaded loaded;
      try {
        loaded = Settings.resolve(parent.main.env(), project);
      } catch (Settings.BadSettings e) {
        err.println("waymark: " + e.getMessage());
        return 2;
      }
      loaded.warning().ifPresent(warning -> err.println("waymark: " + warning));
      try (McpServers servers = Workspaces.mcp(loaded.settings(), project, parent.main.env())) {
        List<McpServers.Status> status = servers.awaitStatus();
        McpServers.describe(status).forEach(out::println);
        return status.stream().anyMatch(s -> s.state() != McpServers.State.READY) ? 1 : 0;
      }
    }
  }
}
