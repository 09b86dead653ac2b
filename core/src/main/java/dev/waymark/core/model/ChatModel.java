package dev.waymark.core.model;

import java.util.Optional;

/**
 * A model behind one interface: OpenAI-compatible Chat Completions, Anthropic Messages, or a
 * scripted replay. Implementations stream, retry what is worth retrying, and honour cancellation.
 */
public interface ChatModel {
  /**
   * Sends {@code request}, streaming text to {@code listener}, and returns the full answer.
   *
   * @throws ModelException on failure; kind {@code CANCELLED} when {@code cancellation} fired
   */
  ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation);

  /**
   * Why this model can answer nothing at all (none is configured), said before a prompt makes a
   * checkpoint that could only fail; empty for a model that may answer.
   */
  default Optional<String> unavailable() {
    return Optional.empty();
  }
}
