package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tool of an MCP server, offered to the model as {@code SERVER__tool} (in the characters model
 * APIs accept, and made unique among the tools offered: see {@link #named}). Approval and rules
 * know it by its server's real name for it ({@link #ruleName}), never by the name offered, which
 * two tools could share before it was made unique. The server is another
 * program that may write files in the project, so a call is captured like an unsandboxed shell
 * command: it takes the project's command slot, the work tree is scanned before and compared
 * after, and what changed is recorded in the running checkpoint and listed in the result.
 */
public final class McpTool implements Tool {
  private static final Logger LOG = LoggerFactory.getLogger(McpTool.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** OpenAI's and Anthropic's limit on a tool name. */
  public static final int MAX_NAME = 64;
  private static final long SLOT_POLL_MILLIS = 200;
  private static final int SUMMARY_ARGUMENTS = 200;

  /** The server a tool belongs to, as a call sees it; answers every call, errors included, and never throws. */
  public interface Server {
    String name();

    /** Calls {@code tool}; a failure of the server (timeout, crash, protocol error) comes back as an error result. */
    ToolResult call(String tool, JsonNode arguments, Cancellation cancellation);
  }

  private final Server server;
  private final String tool;
  private final ToolSpec spec;
  private final boolean preApproved;
  private final ToolSettings settings;
  /** The server's {@code readOnlyHint}: its word that the tool changes nothing, which plan mode goes by (see {@link #inPlan}). */
  private final boolean readOnly;

  public McpTool(Server server, String tool, String description, JsonNode inputSchema, boolean preApproved,
      ToolSettings settings) {
    this(server, tool, new ToolSpec(nameOf(server.name(), tool),
        "[MCP server " + server.name() + "] " + (description == null || description.isBlank() ? tool : description),
        schema(inputSchema)), preApproved, settings, false);
  }

  private McpTool(Server server, String tool, ToolSpec spec, boolean preApproved, ToolSettings settings,
      boolean readOnly) {
    this.server = server;
    this.tool = tool;
    this.spec = spec;
    this.preApproved = preApproved;
    this.settings = settings;
    this.readOnly = readOnly;
  }

  /** This tool, declared read-only ({@code readOnlyHint: true} among its annotations) or not by its server. */
  public McpTool readOnly(boolean declared) {
    return declared == readOnly ? this : new McpTool(server, tool, spec, preApproved, settings, declared);
  }

  /** This tool offered to the model as {@code name} (one that no other tool offered has). */
  public McpTool named(String name) {
    return name.equals(spec.name()) ? this
        : new McpTool(server, tool, new ToolSpec(name, spec.description(), spec.parameters()), preApproved, settings,
            readOnly);
  }

  /** Whether {@link #nameOf} had to change the server's or the tool's name (characters or length). */
  public boolean renamed() {
    return !nameOf(server.name(), tool).equals(server.name() + "__" + tool);
  }

  /** {@code SERVER__tool}, in the characters model APIs accept, at most 64 of them. */
  public static String nameOf(String server, String tool) {
    String name = (server + "__" + tool).replaceAll("[^A-Za-z0-9_-]", "_");
    return name.length() <= MAX_NAME ? name : name.substring(0, MAX_NAME);
  }

  /** A schema the model APIs take: an object schema, whatever the server sent. */
  private static JsonNode schema(JsonNode given) {
    if (given != null && given.isObject() && "object".equals(given.path("type").asText())) {
      return given;
    }
    ObjectNode empty = JSON.createObjectNode();
    empty.put("type", "object");
    empty.putObject("properties");
    return empty;
  }

  public String server() {
    return server.name();
  }

  /** The tool's own name on its server. */
  public String tool() {
    return tool;
  }

  @Override
  public ToolSpec spec() {
    return spec;
  }

  @Override
  public ToolKind kind() {
    return ToolKind.MCP;
  }

  /**
   * A tool its server declares read-only may be called in plan mode, asked about as MCP tools are in
   * every mode but yolo: {@code readOnlyHint} is the server's word, not a fence, so the user judges.
   */
  @Override
  public PlanUse inPlan(JsonNode arguments) {
    return readOnly ? PlanUse.as(ToolKind.MCP) : PlanUse.refused("the MCP server does not declare " + tool
        + " read-only (readOnlyHint)");
  }

  @Override
  public String ruleName() {
    return "mcp__" + server.name() + "__" + tool;
  }

  @Override
  public boolean preApproved() {
    return preApproved;
  }

  @Override
  public String describe(JsonNode arguments) {
    String shown = arguments == null || arguments.isEmpty() ? "{}" : arguments.toString();
    if (shown.length() > SUMMARY_ARGUMENTS) {
      shown = shown.substring(0, SUMMARY_ARGUMENTS) + "…";
    }
    return "MCP server " + server.name() + ", tool " + tool + " " + shown;
  }

  @Override
  public String preview(JsonNode arguments, Path projectRoot) {
    if (arguments == null || arguments.isEmpty()) {
      return "";
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(arguments);
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public ToolResult run(JsonNode arguments, ToolContext context) {
    if (arguments != null && !arguments.isObject()) {
      return ToolResult.error(ErrorKind.REFUSED, "The arguments of " + name() + " must be a JSON object.");
    }
    if (context.cancellation().isCancelled()) {
      return ToolResult.error(ErrorKind.INTERRUPTED, "Cancelled before the call started.");
    }
    CommandSlot.Held slot = null;
    if (context.turn() != null && !context.turn().insideACommandOnThisProject()) {
      // the server's file changes are found by comparing the tree: no shell command may overlap
      CommandSlot slots = context.turn().commandSlot();
      try {
        while (slot == null) {
          if (context.cancellation().isCancelled()) {
            return ToolResult.error(ErrorKind.INTERRUPTED, "Cancelled while waiting for a shell command or MCP call on this project to finish.");
          }
          slot = slots.take(SLOT_POLL_MILLIS).orElse(null);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ToolResult.error(ErrorKind.INTERRUPTED, "Cancelled while waiting for a shell command or MCP call on this project to finish.");
      }
    }
    try (CommandSlot.Held held = slot) {
      return captured(arguments, context);
    }
  }

  private ToolResult captured(JsonNode arguments, ToolContext context) {
    WorkTreeSnapshot snapshot = null;
    if (context.turn() != null) {
      try {
        snapshot = context.turn().snapshotWorkTree(settings.maxFileSize());
      } catch (CheckpointException e) {
        return ToolResult.error(ToolError.kindOf(e), "The MCP call was not made: its file changes could not be made undoable ("
            + e.getMessage() + ").");
      }
    }
    ToolResult reply;
    try {
      reply = server.call(tool, arguments == null ? JSON.createObjectNode() : arguments, context.cancellation());
    } catch (RuntimeException e) {
      LOG.warn("MCP call {} failed unexpectedly", name(), e);
      reply = ToolResult.error(ErrorKind.INTERNAL, name() + " failed unexpectedly: " + e.getMessage());
    }
    CappedOutput capped = new CappedOutput(settings.shellMaxOutputBytes());
    byte[] bytes = reply.content().getBytes(StandardCharsets.UTF_8);
    capped.write(bytes, bytes.length);
    StringBuilder out = new StringBuilder(capped.text());
    if (out.length() == 0) {
      out.append("(no content)");
    }
    if (out.charAt(out.length() - 1) != '\n') {
      out.append('\n');
    }
    if (snapshot != null) {
      try {
        WorkTreeChanges changes = snapshot.recordChanges();
        RunShellTool.describe(changes, out);
      } catch (CheckpointException e) {
        LOG.warn("could not record the changes of {}", name(), e);
        out.append("[could not record the files this call changed: ").append(e.getMessage())
            .append("; undo will not restore them]\n");
      }
    }
    return reply.isError() ? ToolResult.error(reply.errorKind().orElseThrow(), out.toString()) : ToolResult.ok(out.toString());
  }
}
