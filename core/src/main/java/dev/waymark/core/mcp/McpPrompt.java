package dev.waymark.core.mcp;

import java.util.List;

/**
 * A prompt an MCP server offers, run as {@code /SERVER:NAME}: its description and the arguments it
 * declares, in the server's order.
 */
public record McpPrompt(String server, String name, String description, List<Argument> arguments) {
  public McpPrompt {
    description = description == null ? "" : description;
    arguments = List.copyOf(arguments);
  }

  /** One declared argument; {@code required} ones must be given. */
  public record Argument(String name, String description, boolean required) {
    public Argument {
      description = description == null ? "" : description;
    }
  }

  /** What is typed to run it: {@code /SERVER:NAME}. */
  public String command() {
    return "/" + server + ":" + name;
  }

  /** How it is typed with its arguments: {@code /SERVER:NAME <required> [optional]}. */
  public String usage() {
    StringBuilder usage = new StringBuilder(command());
    for (Argument argument : arguments) {
      usage.append(argument.required() ? " <" + argument.name() + ">" : " [" + argument.name() + "]");
    }
    return usage.toString();
  }
}
