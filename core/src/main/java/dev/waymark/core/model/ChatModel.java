package dev.waymark.core.model;

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
}
