package dev.waymark.core.model;

import java.util.List;
import java.util.Objects;

/** One message of a conversation, as sent to a model. Provider-neutral. */
public sealed interface ChatMessage
    permits ChatMessage.System, ChatMessage.User, ChatMessage.Assistant, ChatMessage.ToolResult {

  /** The system prompt. */
  record System(String text) implements ChatMessage {
    public System {
      Objects.requireNonNull(text);
    }
  }

  /** What the user typed (a prompt, or a steering message folded into a running turn). */
  record User(String text) implements ChatMessage {
    public User {
      Objects.requireNonNull(text);
    }
  }

  /** What the model answered: text (possibly empty) and the tool calls it asked for. */
  record Assistant(String text, List<ToolCall> toolCalls) implements ChatMessage {
    public Assistant {
      text = text == null ? "" : text;
      toolCalls = List.copyOf(toolCalls);
    }
  }

  /** The result of one tool call, answered back to the model. */
  record ToolResult(String toolCallId, String toolName, String content, boolean isError) implements ChatMessage {
    public ToolResult {
      Objects.requireNonNull(toolCallId);
      Objects.requireNonNull(toolName);
      Objects.requireNonNull(content);
    }
  }
}
