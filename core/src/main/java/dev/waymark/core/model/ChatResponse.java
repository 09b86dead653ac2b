package dev.waymark.core.model;

import java.util.Optional;

/** A model's complete answer to one request, once its stream ended. */
public record ChatResponse(ChatMessage.Assistant message, Optional<Usage> usage, String stopReason) {
  /**
   * Tokens used, when the provider says.
   *
   * @param inputTokens everything the model read, cached or not (what fills the context window)
   * @param cacheReadTokens the part of {@code inputTokens} read from the provider's prompt cache
   * @param cacheWriteTokens the part of {@code inputTokens} written to it (Anthropic charges these more)
   */
  public record Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {
    /** A provider that says nothing of a cache. */
    public Usage(long inputTokens, long outputTokens) {
      this(inputTokens, outputTokens, 0, 0);
    }
  }
}
