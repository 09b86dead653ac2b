package dev.waymark.core.model;

import java.util.List;

/** One call to a model: the whole conversation so far and the tools it may use. */
public record ChatRequest(String model, List<ChatMessage> messages, List<ToolSpec> tools) {
  public ChatRequest {
    messages = List.copyOf(messages);
    tools = List.copyOf(tools);
  }
}
