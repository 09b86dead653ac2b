package dev.waymark.core.subagent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolKind;
import dev.waymark.core.tool.ToolResult;
import java.util.Collections;
import java.util.stream.Collectors;

/**
 * {@code task}: hands a self-contained piece of work to a subagent, which runs in a new tab with its own
 * conversation and checkpoints; its final answer is this call's result. Several calls in one response
 * run at once. The call itself needs no approval: each of the subagent's own calls is judged as the
 * parent's would be (same mode, same rules).
 */
public final class TaskTool implements Tool {
  public static final String NAME = "task";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Subagents subagents;

  public TaskTool(Subagents subagents) {
    this.subagents = subagents;
  }

  @Override
  public ToolSpec spec() {
    ObjectNode schema = JSON.createObjectNode().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("description").put("type", "string").put("description", "A short (3-5 words) title of the task");
    properties.putObject("prompt").put("type", "string").put("description",
        "The task, complete in itself: the subagent sees nothing of this conversation");
    properties.putObject("agent").put("type", "string").put("description", "The agent to run (default general): "
        + subagents.agents().stream().map(AgentDefinition::name).collect(Collectors.joining(", ")));
    properties.putObject("isolated").put("type", "boolean").put("description",
        "Work on a copy-on-write view of the project of its own, landed on the project when it finishes "
            + "(left for the user to land when the project changed under its files meanwhile)");
    schema.putArray("required").add("description").add("prompt");
    schema.put("additionalProperties", false);
    return new ToolSpec(NAME, "Start a subagent in a new tab for a self-contained task and wait for its final answer. "
        + "Call task several times in one response to run subagents at once. Agents:\n"
        + subagents.agents().stream().map(a -> "- " + a.name() + ": " + a.description())
            .collect(Collectors.joining("\n")), schema);
  }

  @Override
  public ToolKind kind() {
    return ToolKind.READ; // the subagent's own calls are asked about in its tab
  }

  @Override
  public boolean concurrent() {
    return true;
  }

  @Override
  public String describe(JsonNode arguments) {
    return arguments.path("agent").asText("general") + ": " + arguments.path("description").asText(""); // shown after the name
  }

  @Override
  public ToolResult run(JsonNode arguments, ToolContext context) {
    String description = arguments.path("description").asText("").strip();
    String prompt = arguments.path("prompt").asText("").strip();
    String agent = arguments.path("agent").asText("general").strip();
    if (prompt.isEmpty()) {
      return ToolResult.error(ErrorKind.REFUSED, "Not run: task needs a prompt, the whole task for the subagent.");
    }
    if (subagents.agents().stream().noneMatch(a -> a.name().equals(agent))) {
      return ToolResult.error(ErrorKind.NOT_FOUND, "Not run: no agent named \"" + agent + "\". The agents are: "
          + subagents.agents().stream().map(AgentDefinition::name).collect(Collectors.joining(", ")) + ".");
    }
    boolean isolated = arguments.path("isolated").asBoolean(false);
    Subagents.Outcome outcome = subagents.run(new Subagents.Request(context.turn().tabId(), context.turn().number(),
        description.isEmpty() ? prompt.lines().findFirst().orElse(prompt) : description, prompt, agent, isolated),
        context.cancellation());
    if (!outcome.childTab().isEmpty() && !outcome.checkpoints().isEmpty()) { // the parent's checkpoint owns them
      context.turn().linkChild(new ChildLink(outcome.childTab(), Collections.min(outcome.checkpoints()),
          Collections.max(outcome.checkpoints()), isolated));
    }
    return switch (outcome.ending()) {
      case DONE -> ToolResult.ok(outcome.text());
      case STOPPED -> ToolResult.error(ErrorKind.INTERRUPTED, "The subagent was stopped before it finished"
          + (outcome.text().isBlank() ? "." : "; what it had said:\n" + outcome.text()));
      case FAILED -> ToolResult.error(ErrorKind.TOOL_FAILED, "The subagent failed: " + outcome.text());
    };
  }
}
