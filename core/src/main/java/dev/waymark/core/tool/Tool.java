package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.sandbox.ProjectSecrets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One tool the model may call. Names and parameters are a public contract. A tool never throws
 * for bad input: it returns an error result the model can read.
 */
public interface Tool {
  ToolSpec spec();

  ToolKind kind();

  /**
   * What this call does, which decides whether it needs approval: {@link #kind()}, unless the call's
   * arguments change it (a shell command asking to leave the sandbox).
   */
  default ToolKind kind(JsonNode arguments) {
    return kind();
  }

  /**
   * How this call runs in plan mode: a read runs as one; any other call is refused unless its tool
   * can run it without changing anything (a sandboxed command on a read-only project, an MCP tool
   * its server declares read-only).
   */
  default PlanUse inPlan(JsonNode arguments) {
    return kind(arguments) == ToolKind.READ ? PlanUse.as(ToolKind.READ) : PlanUse.refused("");
  }

  /** A short human summary of a call, e.g. the path or the command, for approval prompts and logs. */
  String describe(JsonNode arguments);

  ToolResult run(JsonNode arguments, ToolContext context);

  /**
   * What the call would change, as a unified diff, for an approval prompt; empty when the tool
   * changes no file or the change cannot be foreseen. Reads only; never throws.
   */
  default String preview(JsonNode arguments, Path projectRoot) {
    return "";
  }

  /** {@link #preview(JsonNode, java.nio.file.Path)} in the call's tab: an isolated tab's diff is against its view's file. */
  default String preview(JsonNode arguments, ToolContext context) {
    return preview(arguments, context.projectRoot());
  }

  /**
   * Set when the call would send a secrets file ({@code .env}, {@code .env.local}, …) to the model
   * or change Waymark's own files ({@code .waymark/}): such a call asks for approval in every
   * mode, and "allow for this session" does not cover it. Judged on the resolved path.
   */
  default Optional<Sensitive> sensitive(JsonNode arguments, Path projectRoot) {
    return Optional.empty();
  }

  /**
   * A path whose content is secret by convention: {@code .env}, {@code .env.*}, or anything inside
   * a directory so named. Judge the resolved path (see {@code ProjectPaths}), never the spelling.
   */
  static boolean isSecretsFile(String path) {
    for (String segment : path.replace('\\', '/').split("/")) {
      if (ProjectSecrets.isSecretsName(segment)) { // one rule with plan mode's sandbox
        return true;
      }
    }
    return false;
  }

  /** A path inside a {@code .waymark} directory, where Waymark's settings live (any case). */
  static boolean isWaymarkFile(String path) {
    for (String segment : path.replace('\\', '/').split("/")) {
      if (segment.equalsIgnoreCase(".waymark")) {
        return true;
      }
    }
    return false;
  }

  /**
   * What allow and deny rules judge besides the tool: a shell command's line, a web request's
   * {@code domain:HOST}; empty when rules judge the tool alone.
   */
  default Optional<String> ruleSubject(JsonNode arguments) {
    return Optional.empty();
  }

  default String name() {
    return spec().name();
  }

  /**
   * The name allow and deny rules know the tool by: its own name, or {@code mcp__SERVER__TOOL}
   * for a tool of an MCP server (so that {@code mcp__SERVER} can match a whole server).
   */
  default String ruleName() {
    return name();
  }

  /**
   * Set for a tool whose calls may run at the same time as other such calls of one model response
   * (a {@code task} hands work to a subagent tab, which changes nothing of the caller's turn).
   */
  default boolean concurrent() {
    return false;
  }

  /** Set when the user's settings pre-allow this tool ({@code allowedTools}): it runs unasked like one allowed for the session. */
  default boolean preApproved() {
    return false;
  }
}
