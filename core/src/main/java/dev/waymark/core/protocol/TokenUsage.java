package dev.waymark.core.protocol;

/**
 * The tokens one model call read and wrote, as the provider counted them.
 *
 * @param inputTokens everything read, the cached part included
 * @param cacheReadTokens the part of {@code inputTokens} read from the provider's prompt cache
 * @param cacheWriteTokens the part of {@code inputTokens} written to it
 */
public record TokenUsage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {
  /** A call whose provider said nothing of a cache. */
  public TokenUsage(long inputTokens, long outputTokens) {
    this(inputTokens, outputTokens, 0, 0);
  }

  /** Both calls' tokens together. */
  public TokenUsage plus(TokenUsage other) {
    return new TokenUsage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
        cacheReadTokens + other.cacheReadTokens, cacheWriteTokens + other.cacheWriteTokens);
  }
}
