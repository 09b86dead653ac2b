package dev.waymark.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.ChildRestore;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.protocol.TokenUsage;
import dev.waymark.core.protocol.ToolCallView;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The protocol's events as {@code exec --json} writes them: one JSON object per event, with the
 * format's version and the event's type first. A field is renamed or removed only with a new
 * {@link #VERSION}; new fields and new types may appear within one version, so readers skip what
 * they do not know. The README's "exec --json" table documents every type; a test holds them equal.
 */
final class EventLines {
  /** The format's version, in every line as {@code "v"}. */
  static final int VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper();

  private EventLines() {}

  /** One line (no newline) for {@code event} of the tab {@code tab} (a subagent's events come from its own tab). */
  static String line(Event event, String tab) {
    ObjectNode body = toJson(event);
    ObjectNode node = head(body.get("type").asText());
    node.put("tab", tab); // first after the type, as the README's table lists it
    body.remove(List.of("v", "type"));
    node.setAll(body);
    return write(node);
  }

  /** The line that ends an exec run: which session and tab hold the turn, for {@code --session} and {@code --tab}. */
  static String session(String session, String tab) {
    ObjectNode node = head("session");
    node.put("session", session);
    node.put("tab", tab);
    return write(node);
  }

  /** The type name of each event class, as the lines carry it: {@code TurnStarted} is {@code turn_started}. */
  static String type(Class<?> eventClass) {
    String name = eventClass.getSimpleName();
    if (name.equals("AssistantDelta")) {
      return "text_delta"; // what scripts look for; "assistant" says nothing more
    }
    return name.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  /** {@code usage}: Anthropic's names for the cache's share, which {@code input_tokens} includes. */
  private static void usage(ObjectNode node, TokenUsage u) {
    node.putObject("usage").put("input_tokens", u.inputTokens()).put("output_tokens", u.outputTokens())
        .put("cache_read_input_tokens", u.cacheReadTokens()).put("cache_creation_input_tokens", u.cacheWriteTokens());
  }

  static ObjectNode toJson(Event event) {
    ObjectNode node = head(type(event.getClass()));
    event.dispatch(new Fields(node));
    return node;
  }

  /** The fields of each event's line: one method per event, so that a new event does not compile until it has its line. */
  private record Fields(ObjectNode node) implements Event.Handler {
    @Override
    public void turnStarted(Event.TurnStarted e) {
      node.put("checkpoint", e.checkpoint()).put("parent", e.parent()).put("prompt", e.prompt());
    }

    @Override
    public void reasoningDelta(Event.ReasoningDelta e) {
      node.put("checkpoint", e.checkpoint()).put("text", e.text());
    }

    @Override
    public void assistantDelta(Event.AssistantDelta e) {
      node.put("checkpoint", e.checkpoint()).put("text", e.text());
    }

    @Override
    public void toolCallProposed(Event.ToolCallProposed e) {
      node.put("checkpoint", e.checkpoint());
      call(node, e.call());
      node.put("summary", e.summary()).put("preview", e.preview()).put("needs_approval", e.needsApproval());
    }

    @Override
    public void toolCallFinished(Event.ToolCallFinished e) {
      node.put("checkpoint", e.checkpoint());
      call(node, e.call());
      node.put("result", e.result()).put("is_error", e.isError());
      node.put("code", e.errorKind().map(ErrorKind::code).orElse(null));
      strings(node.putArray("files"), e.changedPaths());
    }

    @Override
    public void toolOutput(Event.ToolOutput e) {
      node.put("checkpoint", e.checkpoint()).put("id", e.id()).put("text", e.text());
    }

    @Override
    public void steeringQueued(Event.SteeringQueued e) {
      node.put("checkpoint", e.checkpoint()).put("text", e.text());
    }

    @Override
    public void steeringFolded(Event.SteeringFolded e) {
      node.put("checkpoint", e.checkpoint()).put("text", e.text());
    }

    @Override
    public void checkpointCreated(Event.CheckpointCreated e) {
      checkpoint(node, e.checkpoint());
    }

    @Override
    public void checkpointRestored(Event.CheckpointRestored e) {
      restore(node, e.result());
      e.pendingToolCall().ifPresentOrElse(c -> call(node.putObject("pending_call"), c), () -> node.putNull("pending_call"));
      node.put("draft", e.draft());
    }

    @Override
    public void viewMoved(Event.ViewMoved e) {
      node.put("checkpoint", e.checkpoint()).put("live", e.live());
    }

    @Override
    public void branchRefused(Event.BranchRefused e) {
      node.put("from", e.from()).put("prompt", e.prompt());
      strings(node.putArray("conflicts"), e.result().conflicts());
      node.put("summary", e.result().summary());
    }

    @Override
    public void checkpointSaved(Event.CheckpointSaved e) {
      checkpoint(node, e.checkpoint());
      node.put("name", e.name()).put("ref", e.ref());
      optional(node, "moved_from", e.movedFrom());
    }

    @Override
    public void saveDeleted(Event.SaveDeleted e) {
      node.put("checkpoint", e.checkpoint()).put("name", e.name()).put("ref", e.ref());
    }

    @Override
    public void settingsChanged(Event.SettingsChanged e) {
      node.put("model", e.model()).put("mode", e.mode());
    }

    @Override
    public void usageReported(Event.UsageReported e) {
      node.put("checkpoint", e.checkpoint()).put("model", e.model());
      usage(node, e.usage());
    }

    @Override
    public void checkpointsListed(Event.CheckpointsListed e) {
      node.put("live", e.live());
      ArrayNode rows = node.putArray("checkpoints");
      e.checkpoints().forEach(summary -> summary(rows.addObject(), summary));
    }

    @Override
    public void diffReady(Event.DiffReady e) {
      node.put("checkpoint", e.diff().checkpoint());
      ArrayNode files = node.putArray("files");
      e.diff().files().forEach(f -> files.addObject().put("path", f.path()).put("added", f.added())
          .put("removed", f.removed()).put("binary", f.binary()).put("unified", f.unified()));
    }

    @Override
    public void comparisonReady(Event.ComparisonReady e) {
      node.put("from", e.comparison().from().toString()).put("to", e.comparison().to().toString());
      ArrayNode files = node.putArray("files");
      e.comparison().files().forEach(f -> {
        var file = files.addObject().put("path", f.path()).put("change", f.change().name().toLowerCase(Locale.ROOT))
            .put("added", f.added()).put("removed", f.removed()).put("binary", f.binary());
        strings(file.putArray("hunks"), f.hunks());
        file.put("unified", f.unified());
      });
    }

    @Override
    public void exported(Event.Exported e) {
      node.put("branch", e.export().branch()).put("base", e.export().base().orElse(null))
          .put("replaced", e.export().replaced().orElse(null));
      ArrayNode commits = node.putArray("commits");
      e.export().commits().forEach(c -> {
        var commit = commits.addObject().put("id", c.id());
        c.checkpoints().forEach(commit.putArray("checkpoints")::add);
        commit.put("subject", c.subject()).put("files", c.files());
      });
      e.export().skipped().forEach(node.putArray("skipped")::add);
      e.export().ignored().forEach(node.putArray("ignored")::add);
    }

    @Override
    public void waiting(Event.Waiting e) {
      node.put("checkpoint", e.checkpoint()).put("message", e.message());
    }

    @Override
    public void warning(Event.Warning e) {
      node.put("message", e.message());
    }

    @Override
    public void promptBlocked(Event.PromptBlocked e) {
      node.put("checkpoint", e.checkpoint()).put("message", e.message());
    }

    @Override
    public void error(Event.Error e) {
      node.put("code", e.kind().code()).put("message", e.message());
    }

    @Override
    public void contextUsed(Event.ContextUsed e) {
      node.put("checkpoint", e.checkpoint()).put("tokens", e.tokens());
      if (e.window() > 0) {
        node.put("window", e.window()).put("percent", e.percent().getAsInt());
      } else {
        node.putNull("window").putNull("percent");
      }
      node.put("estimated", e.estimated());
    }

    @Override
    public void compacting(Event.Compacting e) {
      node.put("checkpoint", e.checkpoint()).put("reason", e.reason());
    }

    @Override
    public void turnFinished(Event.TurnFinished e) {
      node.put("checkpoint", e.checkpoint()).put("status", e.status().name().toLowerCase(Locale.ROOT));
      e.usage().ifPresentOrElse(u -> usage(node, u), () -> node.putNull("usage"));
    }

    @Override
    public void tabRestored(Event.TabRestored e) {
      // the chat of a resumed tab is already in its session file; scripts need where it stands
      node.put("tab", e.tabId()).put("live", e.live());
      ArrayNode path = node.putArray("live_path");
      e.livePath().forEach(path::add);
      node.put("checkpoints", e.checkpoints().size());
    }
  }

  private static ObjectNode head(String type) {
    ObjectNode node = JSON.createObjectNode();
    node.put("v", VERSION);
    node.put("type", type);
    return node;
  }

  private static void call(ObjectNode node, ToolCallView call) {
    node.put("id", call.id()).put("name", call.name());
    node.set("arguments", arguments(call.argumentsJson()));
  }

  /** The call's arguments as JSON when they are, else as the text the model sent. */
  private static JsonNode arguments(String json) {
    try {
      JsonNode parsed = JSON.readTree(json);
      return parsed == null ? JSON.getNodeFactory().textNode(json) : parsed;
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(json);
    }
  }

  private static void checkpoint(ObjectNode node, CheckpointView view) {
    node.put("checkpoint", view.number());
    optional(node, "parent", view.parent());
    node.put("status", view.status().name().toLowerCase(Locale.ROOT));
    node.put("created", view.created().toString());
    strings(node.putArray("files"), view.changedPaths());
    strings(node.putArray("subagent_files"), view.subagentPaths());
    optional(node, "commit", view.commit());
    optional(node, "tag", view.tag());
    strings(node.putArray("saved_names"), view.savedNames().stream().sorted().toList());
  }

  private static void summary(ObjectNode node, CheckpointSummary s) {
    node.put("checkpoint", s.number());
    optional(node, "parent", s.parent());
    node.put("status", s.status().name().toLowerCase(Locale.ROOT)).put("created", s.created().toString())
        .put("prompt", s.prompt()).put("files_changed", s.filesChanged()).put("added", s.added())
        .put("removed", s.removed()).put("on_live_path", s.onLivePath());
    optional(node, "tag", s.tag());
    strings(node.putArray("saved_names"), s.savedNames().stream().sorted().toList());
  }

  private static void restore(ObjectNode node, RestoreOutcome r) {
    node.put("applied", r.applied()).put("from", r.from()).put("target", r.target());
    strings(node.putArray("written"), r.written());
    strings(node.putArray("merged"), r.merged());
    strings(node.putArray("conflicts"), r.conflicts());
    optional(node, "rescue_tag", r.rescueTag());
    ArrayNode path = node.putArray("live_path");
    r.livePath().forEach(path::add);
    node.put("summary", r.summary());
    ArrayNode children = node.putArray("children");
    for (ChildRestore child : r.children()) {
      ObjectNode c = children.addObject().put("tab", child.tab()).put("back", child.back())
          .put("state", child.state().name().toLowerCase(Locale.ROOT)).put("stopped", child.stopped())
          .put("withdrawn", child.withdrawn());
      child.result().ifPresent(files -> {
        c.put("applied", files.applied()).put("target", files.target());
        strings(c.putArray("written"), files.written());
        strings(c.putArray("deleted"), files.deleted());
        strings(c.putArray("merged"), files.merged());
        strings(c.putArray("conflicts"), files.conflicts());
      });
      ArrayNode own = c.putArray("own_turns");
      child.ownTurns().forEach(own::add);
    }
  }

  private static void strings(ArrayNode array, Collection<String> values) {
    values.forEach(array::add);
  }

  private static void optional(ObjectNode node, String field, Optional<String> value) {
    value.ifPresentOrElse(v -> node.put(field, v), () -> node.putNull(field));
  }

  private static void optional(ObjectNode node, String field, OptionalInt value) {
    value.ifPresentOrElse(v -> node.put(field, v), () -> node.putNull(field));
  }

  private static String write(ObjectNode node) {
    try {
      return JSON.writeValueAsString(node); // compact: JSON escapes every newline, so one object is one line
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an event could not be written as JSON", e);
    }
  }
}
