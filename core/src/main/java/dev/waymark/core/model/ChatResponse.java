package dev.waymark.core.model;

import java.util.Optional;

/** A model's complete answer to one request, once its stream ended. */
public record ChatResponse(ChatMessage.Assistant message, Optional<Usage> usage, String stopReason) {
  /** Tokens used, when the provider says. */
  public record Usage(long inputTokens, long outputTokens) {}
}
