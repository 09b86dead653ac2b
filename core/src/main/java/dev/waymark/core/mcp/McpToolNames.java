package dev.waymark.core.mcp;

import dev.waymark.core.tool.McpTool;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives each MCP tool a name offered to the model that no other tool has. Model APIs take only
 * letters, digits, {@code _} and {@code -}, at most 64, so {@code list.issues} and {@code list_issues}
 * of one server would both be {@code gh__list_issues}, and the model's call of one would run the
 * other. A tool whose name needed no change keeps it whatever the server's order; the others get
 * theirs in the servers' order, with {@code _2}, {@code _3}, … when it is taken. A pure function of
 * the tools' list, so that every request of a conversation offers the same names for the same tools.
 */
final class McpToolNames {
  /** A tool that could not have its plain name, which {@code holder} has; for the chat. */
  record Clash(McpTool renamed, McpTool holder) {
    String message() {
      return "MCP server " + renamed.server() + "'s tool " + renamed.tool() + " is offered to the model as "
          + renamed.name() + ", since " + holder.name() + " is MCP server " + holder.server() + "'s tool "
          + holder.tool() + " (model APIs allow only letters, digits, _ and -)";
    }
  }

  /** The tools, named apart, in the order given. */
  record Named(List<McpTool> tools, List<Clash> clashes) {}

  private McpToolNames() {}

  static Named assign(List<McpTool> tools) {
    Map<String, McpTool> taken = new HashMap<>();
    Map<Integer, McpTool> named = new LinkedHashMap<>();
    for (int i = 0; i < tools.size(); i++) { // the exact names first: they are what the server meant
      McpTool tool = tools.get(i);
      if (!tool.renamed() && !taken.containsKey(tool.name())) {
        taken.put(tool.name(), tool);
        named.put(i, tool);
      }
    }
    List<Clash> clashes = new ArrayList<>();
    for (int i = 0; i < tools.size(); i++) {
      if (named.containsKey(i)) {
        continue;
      }
      McpTool tool = tools.get(i);
      String plain = tool.name();
      String name = plain;
      for (int n = 2; taken.containsKey(name); n++) {
        String suffix = "_" + n;
        name = plain.substring(0, Math.min(plain.length(), McpTool.MAX_NAME - suffix.length())) + suffix;
      }
      McpTool renamed = tool.named(name);
      if (!name.equals(plain)) {
        clashes.add(new Clash(renamed, taken.get(plain)));
      }
      taken.put(name, renamed);
      named.put(i, renamed);
    }
    List<McpTool> ordered = new ArrayList<>();
    for (int i = 0; i < tools.size(); i++) {
      ordered.add(named.get(i));
    }
    return new Named(ordered, clashes);
  }
}
