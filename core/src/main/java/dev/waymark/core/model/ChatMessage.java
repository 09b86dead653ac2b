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

  /** What the user typed (a prompt, or a steering message folded into a running turn), and the images it sends. */
  record User(String text, List<Image> images) implements ChatMessage {
    public User {
      Objects.requireNonNull(text);
      images = images == null ? List.of() : List.copyOf(images);
    }

    public User(String text) {
      this(text, List.of());
    }
  }

  /** An image sent with a prompt: its media type ({@code image/png}…), its bytes in base64, and the file it came from. */
  record Image(String mediaType, String base64, String name) {
    public Image {
      Objects.requireNonNull(mediaType);
      Objects.requireNonNull(base64);
    }
  }

  /**
   * What the model answered: text (possibly empty), the tool calls it asked for, and the reasoning
   * a reasoning model showed before them, kept because some providers require it back.
   */
  record Assistant(String text, List<ToolCall> toolCalls, List<Reasoning> reasoning) implements ChatMessage {
    public Assistant {
      text = text == null ? "" : text;
      toolCalls = List.copyOf(toolCalls);
      reasoning = reasoning == null ? List.of() : List.copyOf(reasoning);
    }

    public Assistant(String text, List<ToolCall> toolCalls) {
      this(text, toolCalls, List.of());
    }

    /** All the reasoning's text, blocks separated by blank lines. */
    public String reasoningText() {
      return String.join("\n\n", reasoning.stream().map(Reasoning::text).filter(t -> !t.isEmpty()).toList());
    }
  }

  /**
   * One piece of a model's reasoning: DeepSeek's (or vLLM's, llama.cpp's) {@code reasoning_content},
   * or an Anthropic thinking block with the {@code signature} the API checks when it is sent back;
   * a redacted Anthropic block has only its encrypted {@code redacted} data.
   */
  record Reasoning(String text, String signature, String redacted) {
    public Reasoning {
      text = text == null ? "" : text;
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
