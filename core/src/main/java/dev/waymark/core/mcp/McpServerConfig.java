package dev.waymark.core.mcp;

import dev.waymark.core.protocol.ErrorKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * One configured MCP server: a program spoken to over stdio ({@code command}, {@code args},
 * {@code env}, {@code cwd}), or a streamable HTTP endpoint ({@code url}, {@code headers}). Values
 * of {@code env} and {@code headers} may name environment variables as {@code ${NAME}}, so that
 * a token is never written in a settings file.
 *
 * @param cwd the server's working directory, relative to the project; null for the project root
 * @param callTimeout how long one call may take
 * @param startTimeout how long the server may take to start and answer {@code initialize}
 */
public record McpServerConfig(String name, String command, List<String> args, Map<String, String> env, String cwd,
    String url, Map<String, String> headers, Duration callTimeout, Duration startTimeout) {
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(30);

  public McpServerConfig {
    Objects.requireNonNull(name);
    args = args == null ? List.of() : List.copyOf(args);
    env = env == null ? Map.of() : Map.copyOf(env);
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    callTimeout = callTimeout == null ? DEFAULT_CALL_TIMEOUT : callTimeout;
    startTimeout = startTimeout == null ? DEFAULT_START_TIMEOUT : startTimeout;
    if (name.isEmpty() || name.contains("__") || !name.chars().allMatch(c -> c > ' ' && c != '(' && c != ')')) {
      // rules name a server's tools as mcp__SERVER__TOOL: a name with __ would make mcp__a cover server a__b's tools
      throw new IllegalArgumentException("MCP server \"" + name + "\" needs a name without spaces, parentheses or \"__\"");
    }
    if ((command == null) == (url == null)) {
      throw new IllegalArgumentException("MCP server \"" + name + "\" needs either \"command\" (stdio) or \"url\" "
          + "(streamable HTTP), not both");
    }
  }

  public static McpServerConfig stdio(String name, String command, List<String> args) {
    return new McpServerConfig(name, command, args, Map.of(), null, null, Map.of(), null, null);
  }

  public static McpServerConfig http(String name, String url, Map<String, String> headers) {
    return new McpServerConfig(name, null, List.of(), Map.of(), null, url, headers, null, null);
  }

  public McpServerConfig withTimeouts(Duration call, Duration start) {
    return new McpServerConfig(name, command, args, env, cwd, url, headers, call, start);
  }

  public boolean stdio() {
    return command != null;
  }

  /** How the server is reached, for listings: the command line, or the URL without its query (which may hold a key). */
  public String where() {
    if (stdio()) {
      return String.join(" ", Stream.concat(Stream.of(command), args.stream()).toList());
    }
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query) + "?…";
  }

  /**
   * {@code text} with each {@code ${NAME}} replaced by that variable of {@code environment}; a
   * variable that is not set is an error that names it (never sent as an empty token).
   */
  public static String expand(String text, Map<String, String> environment) throws McpFailure {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int start = text.indexOf("${", at);
      if (start < 0) {
        return out.append(text, at, text.length()).toString();
      }
      int end = text.indexOf('}', start);
      if (end < 0) {
        return out.append(text, at, text.length()).toString();
      }
      String variable = text.substring(start + 2, end);
      String value = environment.get(variable);
      if (value == null) {
        throw new McpFailure(ErrorKind.REFUSED, "the environment variable " + variable + " it names is not set");
      }
      out.append(text, at, start).append(value);
      at = end + 1;
    }
  }
}
