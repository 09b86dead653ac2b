package dev.waymark.core.permission;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One allow or deny rule: a tool, or for {@code run_shell} one command ({@code run_shell(git status)})
 * or the commands starting with a prefix ({@code run_shell(npm test:*)}). An MCP server's tool is
 * {@code mcp__SERVER__TOOL} with the server's own name of the tool ({@code mcp__gh__list.issues}),
 * never the name offered to the model, which sanitizing could give two tools; a rule named
 * {@code mcp__SERVER} covers every tool of that server (server names never hold {@code __}).
 *
 * @param tool the tool's name, or {@code mcp__SERVER}
 * @param command the command or prefix in the parentheses, when there are any
 * @param prefix the command ended with {@code :*}
 */
public record PermissionRule(String tool, Optional<String> command, boolean prefix) {
  public static final String SHELL = "run_shell";
  public static final String WEB_FETCH = "web_fetch";
  private static final Pattern TOOL = Pattern.compile("[A-Za-z0-9_-]+");
  /** An MCP server's tool by the server's own name for it, which may hold any character but space and parentheses. */
  private static final Pattern MCP_TOOL = Pattern.compile("mcp__[^\\s()]+");
  private static final String MCP = "mcp__";

  public PermissionRule {
    if (!TOOL.matcher(tool).matches() && !MCP_TOOL.matcher(tool).matches()) {
      throw new IllegalArgumentException("\"" + tool + "\" is not a tool name (letters, digits, _ and - only, or "
          + "mcp__SERVER__TOOL with the server's name of the tool)");
    }
    command = command.map(String::strip).map(c -> tool.equals(WEB_FETCH) ? c.toLowerCase(Locale.ROOT) : c);
    if (command.isPresent() && !tool.equals(SHELL) && !tool.equals(WEB_FETCH)) {
      throw new IllegalArgumentException("only " + SHELL + " takes a command, and " + WEB_FETCH + " a domain:HOST, in "
          + "parentheses; write \"" + tool + "\" alone");
    }
    if (tool.equals(WEB_FETCH) && command.isPresent()
        && (prefix || !command.get().matches("domain:[A-Za-z0-9.-]+(:[0-9]{1,5})?"))) {
      throw new IllegalArgumentException(WEB_FETCH + " takes domain:HOST in parentheses (web_fetch(domain:example.com))");
    }
    if (command.filter(c -> c.isEmpty() || c.equals("*")).isPresent()) {
      throw new IllegalArgumentException("an empty or \"*\" command: write \"" + SHELL + "\" alone for every command");
    }
    if (prefix && command.isEmpty()) {
      throw new IllegalArgumentException("a prefix needs a command before \":*\"");
    }
  }

  public static PermissionRule tool(String name) {
    return new PermissionRule(name, Optional.empty(), false);
  }

  public static PermissionRule shellPrefix(String prefix) {
    return new PermissionRule(SHELL, Optional.of(prefix), true);
  }

  public static PermissionRule shellCommand(String command) {
    return new PermissionRule(SHELL, Optional.of(command), false);
  }

  /** Reads {@code read_file}, {@code mcp__github}, {@code run_shell(npm test:*)} or {@code run_shell(make)}. */
  public static PermissionRule parse(String text) {
    String rule = text == null ? "" : text.strip();
    int open = rule.indexOf('(');
    if (open < 0) {
      return tool(rule);
    }
    if (!rule.endsWith(")")) {
      throw new IllegalArgumentException("\"" + rule + "\" opens a parenthesis it does not close at its end");
    }
    String command = rule.substring(open + 1, rule.length() - 1).strip();
    boolean prefix = command.endsWith(":*");
    return new PermissionRule(rule.substring(0, open).strip(), Optional.of(prefix ? command.substring(0, command.length() - 2) : command),
        prefix);
  }

  /**
   * The rule "allow for the session" offers for a call of the tool rules know as {@code tool} (see
   * {@code Tool.ruleName}): for a shell command its prefix, else the exact command (never a bare
   * {@code rm} or {@code bash}); for another tool that rules judge by a subject (a web request's
   * {@code domain:HOST}), the tool with that subject; for any other tool, the tool.
   */
  public static PermissionRule suggest(String tool, Optional<String> command) {
    if (command.isEmpty() || command.get().isBlank()) {
      return tool(tool);
    }
    if (!tool.equals(SHELL)) {
      return new PermissionRule(tool, command, false);
    }
    return ShellCommand.prefix(command.get()).map(PermissionRule::shellPrefix)
        .orElseGet(() -> shellCommand(command.get()));
  }

  /**
   * Whether this rule allows the call: same tool (or a tool of the MCP server it names) and, when it
   * has a command, the same command, or one starting with the prefix as a whole word and chaining
   * no other command after it.
   */
  public boolean allows(String toolName, Optional<String> callCommand) {
    if (!coversTool(toolName)) {
      return false;
    }
    if (command.isEmpty()) {
      return true;
    }
    String line = callCommand.map(String::strip).orElse(null);
    if (line == null) {
      return false;
    }
    return prefix ? startsWithWord(line, command.get()) && !ShellCommand.chains(line) : line.equals(command.get());
  }

  /**
   * Whether this rule denies the call: as {@link #allows}, but a command matches when any command
   * the line may run does ({@code ls; rm -rf x} is denied by {@code run_shell(rm:*)}).
   */
  public boolean denies(String toolName, Optional<String> callCommand) {
    if (!coversTool(toolName)) {
      return false;
    }
    if (command.isEmpty()) {
      return true;
    }
    if (callCommand.isEmpty()) {
      return false;
    }
    String line = callCommand.get().strip();
    if (line.equals(command.get())) {
      return true;
    }
    for (String part : ShellCommand.parts(line)) {
      if (prefix ? startsWithWord(part, command.get()) : part.equals(command.get())) {
        return true;
      }
    }
    return false;
  }

  private boolean coversTool(String toolName) {
    return toolName.equals(tool) || tool.startsWith(MCP) && !tool.substring(MCP.length()).contains("__")
        && toolName.startsWith(tool + "__");
  }

  private static boolean startsWithWord(String line, String prefix) {
    return line.equals(prefix) || line.startsWith(prefix) && Character.isWhitespace(line.charAt(prefix.length()));
  }

  /** As written in settings: {@code run_shell(npm test:*)}. */
  @Override
  public String toString() {
    return command.map(c -> tool + "(" + c + (prefix ? ":*" : "") + ")").orElse(tool);
  }
}
